import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ScriptedMessagesServer } from '../src/providers/model/scripted-messages-server.js';
import { applicableScenarios } from '../test/support/scenario-kit/scenarios.js';
import { claudeRecordChannel } from '../test/providers/claude-scenario-channels.js';
import { claudeScenarioProvider } from '../test/providers/claude-scenarios.js';
import {
  pruneTranscripts,
  recordScenarios,
  refuseUnknownScenarios,
  valuesOf,
  wantedScenarios,
} from './record-scenarios.js';

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
const applicable = applicableScenarios(claudeScenarioProvider);
const named = valuesOf(process.argv.slice(2), '--scenario');
refuseUnknownScenarios(named, applicable, 'Claude');
const wanted = wantedScenarios(named, applicable);
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
const { failed } = await recordScenarios({
  channel: claudeRecordChannel({ model, outDir, version }),
  scenarios: wanted,
  label: (scenario) => scenario.name,
  tempPrefix: 'baton-record-claude',
  resetModel: () => model.reset(),
  leftProcesses: myAgents,
});
await model.stop();
if (named.length === 0) pruneTranscripts(outDir, applicable, 'Claude');
if (failed.length > 0) {
  console.error(`${failed.length} of ${wanted.length} scenarios failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`recorded ${wanted.length} scenarios into ${outDir}`);
