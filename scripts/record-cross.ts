import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { codexBinaryPath } from '../src/providers/codex/codex-binary.js';
import { ScriptedMessagesServer } from '../src/providers/model/scripted-messages-server.js';
import { ScriptedModelServer } from '../src/providers/model/scripted-model-server.js';
import { crossAgents, crossRecordChannel, crossTranscriptDir } from '../test/support/scenario-kit/cross-providers.js';
import { crossPlace, runCrossScenario } from '../test/support/scenario-kit/cross-suite.js';
import { crossScenarios } from '../test/support/scenario-kit/scenarios/cross.js';
import { valuesOf } from './record-scenarios.js';

/**
 * `npm run record:cross` (every cross-provider scenario), or `-- --scenario NAME`
 * (one; repeatable): runs each live (Codex, Claude and an ACP agent in one Baton, each against
 * its own scripted model), checks it, and writes each provider's agent processes, as that
 * provider's record channel writes them, to
 * test/fixtures/transcripts/cross/<scenario>/<provider>/<scenario>[.N].ndjson, replacing the
 * scenario's folder; a full run also removes the folders of scenarios no longer listed.
 * Exits 1 if any scenario failed (its old transcripts are then left as they were), 2 on an
 * unknown scenario name.
 */
const named = valuesOf(process.argv.slice(2), '--scenario');
const unknown = named.filter((name) => !crossScenarios.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(`unknown: ${unknown.join(', ')}; cross scenarios: ${crossScenarios.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const wanted = named.length > 0 ? crossScenarios.filter((s) => named.includes(s.name)) : crossScenarios;

const codexVersion = execFileSync(codexBinaryPath(), ['--version']).toString().trim().split(' ').at(-1)!;
// The pinned Claude SDK's version (its package.json is not among its exports: read it from its folder).
const sdkMain = createRequire(import.meta.url).resolve('@anthropic-ai/claude-agent-sdk');
const claudeVersion = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(join(dirname(sdkMain), 'package.json'), 'utf8'))).version;

const models = {
  codex: await new ScriptedModelServer().start(),
  claude: await new ScriptedMessagesServer().start(),
  'codex-acp': await new ScriptedModelServer().start(),
  'claude-agent-acp': await new ScriptedMessagesServer().start(),
};
const failed: string[] = [];
for (const scenario of wanted) {
  // Written apart first: the scenario's old transcripts are replaced only once it passed.
  const staging = mkdtempSync(join(tmpdir(), 'baton-record-cross-out-'));
  const channel = crossRecordChannel({
    models,
    versions: { codex: codexVersion, claude: claudeVersion },
    outDirOf: (name, provider) => join(staging, name, provider),
  });
  const dir = mkdtempSync(join(tmpdir(), 'baton-record-cross-'));
  const root = mkdtempSync(join(tmpdir(), 'baton-record-cross-ws-'));
  try {
    const outcome = await runCrossScenario(scenario, channel, crossPlace(dir, root));
    outcome.close();
    const target = join(crossTranscriptDir, scenario.name);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(crossTranscriptDir, { recursive: true });
    cpSync(join(staging, scenario.name), target, { recursive: true });
    console.log(`recorded ${scenario.name}: ${readdirSync(target).join(', ')}`);
  } catch (error) {
    failed.push(scenario.name);
    console.error(`FAILED ${scenario.name}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await channel.gone();
    Object.values(models).forEach((m) => m.reset());
    for (const d of [staging, dir, root]) rmSync(d, { recursive: true, force: true });
  }
  const left = crossAgents();
  if (left.length > 0) {
    console.error(`agent processes left after ${scenario.name}: ${left.join(', ')}`);
    failed.push(`${scenario.name} (processes left)`);
  }
}
await Promise.all(Object.values(models).map((m) => m.stop()));
if (named.length === 0 && existsSync(crossTranscriptDir))
  for (const stale of readdirSync(crossTranscriptDir).filter((d) => !crossScenarios.some((s) => s.name === d))) {
    rmSync(join(crossTranscriptDir, stale), { recursive: true, force: true });
    console.log(`removed cross/${stale}: no such cross scenario`);
  }
if (failed.length > 0) {
  console.error(`${failed.length} of ${wanted.length} scenarios failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`recorded ${wanted.length} cross scenarios into ${crossTranscriptDir}`);
