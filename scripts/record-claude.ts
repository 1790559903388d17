import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ScriptedMessagesServer } from '../src/providers/model/scripted-messages-server.js';
import { runScenario } from '../test/support/scenario-kit/runner.js';
import { applicableScenarios } from '../test/support/scenario-kit/scenarios.js';
import { claudeRecordChannel } from '../test/providers/claude-scenario-channels.js';
import { claudeScenarioProvider } from '../test/providers/claude-scenarios.js';

/**
 * `npm run record:claude` (every shared scenario Claude's capability declaration makes
 * applicable), or `-- --scenario NAME` (one; repeatable): runs each against the real Claude
 * agent (the SDK's native binary) and the scripted Messages-API model, checks it, and writes
 * the stream-json frames each agent process said and was told to
 * test/fixtures/transcripts/claude/NAME.ndjson (NAME.1.ndjson, NAME.2.ndjson... for several
 * processes), replacing the scenario's old transcripts; a full run also removes the transcripts
 * of scenarios Claude no longer runs. Exits 1 if any scenario failed (its old transcripts are
 * then left as they were), 2 on a scenario name Claude does not run.
 */
const args = process.argv.slice(2);
const applicable = applicableScenarios(claudeScenarioProvider);
const named = args.flatMap((arg, i) => (args[i - 1] === '--scenario' ? [arg] : []));
const unknown = named.filter((name) => !applicable.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(
    `not applicable to Claude (or unknown): ${unknown.join(', ')}; applicable: ${applicable.map((s) => s.name).join(', ')}`,
  );
  process.exit(2);
}
const wanted = named.length > 0 ? applicable.filter((s) => named.includes(s.name)) : applicable;
const outDir = fileURLToPath(new URL('../test/fixtures/transcripts/claude/', import.meta.url));
mkdirSync(outDir, { recursive: true });
// The pinned SDK's version (its package.json is not among its exports: read it from its folder).
const sdkMain = createRequire(import.meta.url).resolve('@anthropic-ai/claude-agent-sdk');
const version = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(join(dirname(sdkMain), 'package.json'), 'utf8'))).version;

/** This process's own agent processes (the adapter spawns them as our children). */
const myAgents = () =>
  spawnSync('pgrep', ['-P', String(process.pid), '-f', 'claude-agent-sdk-linux-x64/claude'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((line) => line.trim());

const model = await new ScriptedMessagesServer().start();
const channel = claudeRecordChannel({ model, outDir, version });
const failed: string[] = [];
for (const scenario of wanted) {
  const dir = mkdtempSync(join(tmpdir(), 'baton-record-claude-'));
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'baton-record-claude-ws-')));
  const place = { cwd, dir, checkpointsRoot: join(dir, 'checkpoints') };
  try {
    const outcome = await runScenario(scenario.drive, channel.open(scenario, place), place);
    outcome.close();
    console.log(`recorded ${scenario.name}`);
  } catch (error) {
    failed.push(scenario.name);
    console.error(`FAILED ${scenario.name}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await channel.gone();
    model.reset();
    rmSync(dir, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
  const left = myAgents();
  if (left.length > 0) {
    console.error(`agent processes left after ${scenario.name}: ${left.join(', ')}`);
    failed.push(`${scenario.name} (processes left)`);
  }
}
await model.stop();
if (named.length === 0) {
  // A full recording: transcripts of scenarios Claude no longer runs go (the replay test refuses them).
  const runs = new Set(applicable.map((s) => s.name));
  for (const file of readdirSync(outDir).filter((f) => f.endsWith('.ndjson'))) {
    const scenario = file.replace(/(\.\d+)?\.ndjson$/, '');
    if (!runs.has(scenario)) {
      rmSync(join(outDir, file));
      console.log(`removed ${file}: Claude does not run ${scenario}`);
    }
  }
}
if (failed.length > 0) {
  console.error(`${failed.length} of ${wanted.length} scenarios failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`recorded ${wanted.length} scenarios into ${outDir}`);
