import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedMessagesServer } from '../src/providers/model/scripted-messages-server.js';
import { ScriptedModelServer } from '../src/providers/model/scripted-model-server.js';
import { acpAgentProcesses, type BuiltInAgent } from '../test/support/live-acp.js';
import { runScenario } from '../test/support/scenario-kit/runner.js';
import { applicableScenarios } from '../test/support/scenario-kit/scenarios.js';
import { acpScenarioProvider, type AcpModel } from '../test/providers/acp-scenario-channels.js';
import { acpRecordChannel, acpTranscriptDir } from '../test/providers/acp-replay-channels.js';

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
const valuesOf = (flag: string) => args.flatMap((arg, i) => (args[i - 1] === flag ? [arg] : []));
const namedAgents = valuesOf('--agent');
const unknownAgents = namedAgents.filter((a) => !AGENTS.some((known) => known === a));
if (unknownAgents.length > 0) {
  console.error(`not a built-in ACP agent: ${unknownAgents.join(', ')}; built in: ${AGENTS.join(', ')}`);
  process.exit(2);
}
const agents = namedAgents.length > 0 ? AGENTS.filter((a) => namedAgents.includes(a)) : AGENTS;
const named = valuesOf('--scenario');
for (const agent of agents) {
  const applicable = applicableScenarios(acpScenarioProvider(agent));
  const unknown = named.filter((name) => !applicable.some((s) => s.name === name));
  if (unknown.length > 0) {
    console.error(
      `not applicable to ${agent} (or unknown): ${unknown.join(', ')}; applicable: ${applicable.map((s) => s.name).join(', ')}`,
    );
    process.exit(2);
  }
}

const failed: string[] = [];
let recorded = 0;
for (const agent of agents) {
  const applicable = applicableScenarios(acpScenarioProvider(agent));
  const wanted = named.length > 0 ? applicable.filter((s) => named.includes(s.name)) : applicable;
  const outDir = acpTranscriptDir(agent);
  mkdirSync(outDir, { recursive: true });
  const server = agent === 'claude-agent-acp' ? new ScriptedMessagesServer() : new ScriptedModelServer();
  await server.start();
  const model: AcpModel =
    server instanceof ScriptedMessagesServer ? { agent: 'claude-agent-acp', server } : { agent: 'codex-acp', server };
  const channel = acpRecordChannel({ model, outDir });
  for (const scenario of wanted) {
    const dir = mkdtempSync(join(tmpdir(), 'baton-record-acp-'));
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'baton-record-acp-ws-')));
    const place = { cwd, dir, checkpointsRoot: join(dir, 'checkpoints') };
    try {
      const outcome = await runScenario(scenario.drive, channel.open(scenario, place), place);
      outcome.close();
      recorded += 1;
      console.log(`recorded ${agent} ${scenario.name}`);
    } catch (error) {
      failed.push(`${agent} ${scenario.name}`);
      console.error(`FAILED ${agent} ${scenario.name}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await channel.gone();
      server.reset();
      rmSync(dir, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    }
    const left = acpAgentProcesses();
    if (left.length > 0) {
      console.error(`agent processes left after ${agent} ${scenario.name}: ${left.join(', ')}`);
      failed.push(`${agent} ${scenario.name} (processes left)`);
    }
  }
  await server.stop();
  if (named.length === 0) {
    // A full recording: transcripts of scenarios the agent no longer runs go (the replay test refuses them).
    const runs = new Set(applicable.map((s) => s.name));
    for (const file of readdirSync(outDir).filter((f) => f.endsWith('.ndjson'))) {
      const scenario = file.replace(/(\.\d+)?\.ndjson$/, '');
      if (!runs.has(scenario)) {
        rmSync(join(outDir, file));
        console.log(`removed ${agent}/${file}: ${agent} does not run ${scenario}`);
      }
    }
  }
}
if (failed.length > 0) {
  console.error(`${failed.length} scenarios failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`recorded ${recorded} scenarios into test/fixtures/transcripts/acp/`);
