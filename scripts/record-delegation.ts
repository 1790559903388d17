import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { codexBinaryPath } from '../src/providers/codex/codex-binary.js';
import {
  delegationLiveChannel,
  delegationTranscriptDir,
  runDelegationScenario,
} from '../test/mcp/delegation-channels.js';
import { delegationScenarios } from '../test/mcp/delegation-scenarios.js';
import { crossAgents } from '../test/support/scenario-kit/cross-providers.js';
import { valuesOf } from './record-scenarios.js';

/**
 * `npm run record:delegation` (every delegation scenario), or `-- --scenario NAME` (one;
 * repeatable): runs each live (real Codex and Claude agents, each against its scripted model,
 * calling Baton's MCP server through a recording proxy), checks it, and writes each agent
 * process's frames and MCP calls to
 * test/fixtures/transcripts/delegation/<scenario>/<codex|claude>/<scenario>[.N].ndjson,
 * replacing the scenario's folder; a full run also removes the folders of scenarios no longer
 * listed. Exits 1 if any scenario failed (its old transcripts are then left as they were), 2
 * on an unknown scenario name.
 */
const named = valuesOf(process.argv.slice(2), '--scenario');
const unknown = named.filter((name) => !delegationScenarios.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(
    `unknown: ${unknown.join(', ')}; delegation scenarios: ${delegationScenarios.map((s) => s.name).join(', ')}`,
  );
  process.exit(2);
}
const wanted = named.length > 0 ? delegationScenarios.filter((s) => named.includes(s.name)) : delegationScenarios;

const codexVersion = execFileSync(codexBinaryPath(), ['--version']).toString().trim().split(' ').at(-1)!;
// The pinned Claude SDK's version (its package.json is not among its exports: read it from its folder).
const sdkMain = createRequire(import.meta.url).resolve('@anthropic-ai/claude-agent-sdk');
const claudeVersion = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(join(dirname(sdkMain), 'package.json'), 'utf8'))).version;

const failed: string[] = [];
for (const scenario of wanted) {
  // Written apart first: the scenario's old transcripts are replaced only once it passed.
  const staging = mkdtempSync(join(tmpdir(), 'baton-record-delegation-out-'));
  const channel = delegationLiveChannel({
    outDir: (name) => join(staging, name),
    versions: { codex: codexVersion, claude: claudeVersion },
    recordedWith: (name) => `npm run record:delegation -- --scenario ${name}`,
  });
  const dir = mkdtempSync(join(tmpdir(), 'baton-record-delegation-'));
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'baton-record-delegation-ws-')));
  try {
    await runDelegationScenario(scenario, channel, { cwd, dir, checkpointsRoot: join(dir, 'checkpoints') });
    const target = join(delegationTranscriptDir, scenario.name);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(delegationTranscriptDir, { recursive: true });
    cpSync(join(staging, scenario.name), target, { recursive: true });
    console.log(`recorded ${scenario.name}: ${readdirSync(target).join(', ')}`);
  } catch (error) {
    failed.push(scenario.name);
    console.error(`FAILED ${scenario.name}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    for (const d of [staging, dir, cwd]) rmSync(d, { recursive: true, force: true });
  }
  const left = crossAgents();
  if (left.length > 0) {
    console.error(`agent processes left after ${scenario.name}: ${left.join(', ')}`);
    failed.push(`${scenario.name} (processes left)`);
  }
}
if (named.length === 0 && existsSync(delegationTranscriptDir))
  for (const stale of readdirSync(delegationTranscriptDir).filter(
    (d) => !delegationScenarios.some((s) => s.name === d),
  )) {
    rmSync(join(delegationTranscriptDir, stale), { recursive: true, force: true });
    console.log(`removed delegation/${stale}: no such delegation scenario`);
  }
if (failed.length > 0) {
  console.error(`${failed.length} of ${wanted.length} scenarios failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`recorded ${wanted.length} delegation scenarios into ${delegationTranscriptDir}`);
