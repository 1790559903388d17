import { mkdirSync } from 'node:fs';
import { ScriptedMessagesServer } from '../src/providers/model/scripted-messages-server.js';
import { ScriptedModelServer } from '../src/providers/model/scripted-model-server.js';
import { acpAgentProcesses, type BuiltInAgent } from '../test/support/live-acp.js';
import { applicableScenarios } from '../test/support/scenario-kit/scenarios.js';
import { acpScenarioProvider, type AcpModel } from '../test/providers/acp-scenario-channels.js';
import { acpRecordChannel, acpTranscriptDir } from '../test/providers/acp-replay-channels.js';
import {
  pruneTranscripts,
  recordScenarios,
  refuseUnknownScenarios,
  valuesOf,
  wantedScenarios,
} from './record-scenarios.js';

/**
 * `npm run record:acp -- --agent NAME` (every shared scenario the agent's declaration makes
 * applicable), or `-- --agent NAME --scenario NAME` (one; both repeatable; no `--agent` is
 * both built-in agents): runs each against the real agent and its scripted model, checks it,
 * and writes the NDJSON frames each agent process said and was told to
 * test/fixtures/transcripts/acp/<agent>/NAME.ndjson (NAME.1.ndjson, NAME.2.ndjson... for
 * several processes), replacing the scenario's old transcripts; a full run of an agent also
 * removes the transcripts of scenarios it no longer runs. Exits 1 if any scenario failed (its
 * old transcripts are then left as they were), 2 on an agent or scenario name it does not run.
 */
const AGENTS: readonly BuiltInAgent[] = ['claude-agent-acp', 'codex-acp'];
const args = process.argv.slice(2);
const namedAgents = valuesOf(args, '--agent');
const unknownAgents = namedAgents.filter((a) => !AGENTS.some((known) => known === a));
if (unknownAgents.length > 0) {
  console.error(`not a built-in ACP agent: ${unknownAgents.join(', ')}; built in: ${AGENTS.join(', ')}`);
  process.exit(2);
}
const agents = namedAgents.length > 0 ? AGENTS.filter((a) => namedAgents.includes(a)) : AGENTS;
const named = valuesOf(args, '--scenario');
for (const agent of agents) refuseUnknownScenarios(named, applicableScenarios(acpScenarioProvider(agent)), agent);

const failed: string[] = [];
let recorded = 0;
for (const agent of agents) {
  const applicable = applicableScenarios(acpScenarioProvider(agent));
  const outDir = acpTranscriptDir(agent);
  mkdirSync(outDir, { recursive: true });
  const server = agent === 'claude-agent-acp' ? new ScriptedMessagesServer() : new ScriptedModelServer();
  await server.start();
  const model: AcpModel =
    server instanceof ScriptedMessagesServer ? { agent: 'claude-agent-acp', server } : { agent: 'codex-acp', server };
  const outcome = await recordScenarios({
    channel: acpRecordChannel({ model, outDir }),
    scenarios: wantedScenarios(named, applicable),
    label: (scenario) => `${agent} ${scenario.name}`,
    tempPrefix: 'baton-record-acp',
    resetModel: () => server.reset(),
    leftProcesses: acpAgentProcesses,
  });
  failed.push(...outcome.failed);
  recorded += outcome.recorded;
  await server.stop();
  if (named.length === 0) pruneTranscripts(outDir, applicable, agent, `${agent}/`);
}
if (failed.length > 0) {
  console.error(`${failed.length} scenarios failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`recorded ${recorded} scenarios into test/fixtures/transcripts/acp/`);
