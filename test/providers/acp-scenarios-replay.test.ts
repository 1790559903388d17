import { afterEach, describe, expect, it } from 'vitest';
import { acpAgentProcesses, type BuiltInAgent } from '../support/live-acp.js';
import { applicableScenarios } from '../support/scenario-kit/scenarios.js';
import { describeScenarios } from '../support/scenario-kit/suite.js';
import { acpAgentCapabilities, acpScenarioProvider } from './acp-scenario-channels.js';
import { AcpReplayChannel, readAcpTranscripts } from './acp-replay-channels.js';

/**
 * The shared scenarios as each built-in ACP agent plays them, from transcripts of its NDJSON
 * frames recorded off the real agent (`npm run record:acp -- --agent NAME`): only the agent
 * process is replaced; the ACP SDK's client and all of Baton are the real ones. A scenario an
 * agent runs without a transcript fails (it is never skipped).
 */
const agents: readonly BuiltInAgent[] = ['claude-agent-acp', 'codex-acp'];
const channels = agents.map((agent) => new AcpReplayChannel(agent, readAcpTranscripts(agent)));

afterEach(async () => {
  await Promise.all(channels.map((c) => c.gone()));
  channels.forEach((c) => (c.entriesFor = (entries) => entries));
  // A replay starts no agent process at all.
  expect(acpAgentProcesses()).toEqual([]);
});

for (const agent of agents) {
  const transcripts = readAcpTranscripts(agent);
  const applicable = applicableScenarios(acpScenarioProvider(agent)).map((s) => s.name);

  describe(`the ${agent} transcripts`, () => {
    it(`every scenario ${agent} runs has one (npm run record:acp -- --agent ${agent} writes them)`, () => {
      const missing = applicable.filter((name) => !transcripts.some((t) => t.header.scenario === name));
      expect(missing, `no transcript for ${missing.join(', ')}: run npm run record:acp -- --agent ${agent}`).toEqual(
        [],
      );
    });

    it(`each is of a scenario ${agent} runs, recorded from the pinned agent`, () => {
      const stale = [...new Set(transcripts.map((t) => t.header.scenario))].filter((n) => !applicable.includes(n));
      expect(stale, `transcripts of scenarios ${agent} does not run: ${stale.join(', ')}`).toEqual([]);
      expect(new Set(transcripts.map((t) => t.header.version))).toEqual(
        new Set(transcripts.length ? [acpAgentCapabilities(agent).version] : []),
      );
      expect(new Set(transcripts.map((t) => `${t.header.provider} ${String(t.header.metadata.agent)}`))).toEqual(
        new Set(transcripts.length ? [`acp ${agent}`] : []),
      );
    });
  });
}

// Longer than a scenario's own 30 s wait, so a replay that diverged fails with what differs
// (the wait's failure carries the replay's account), not with a bare test timeout.
agents.forEach((agent, i) =>
  describeScenarios(`ACP scenarios on ${agent}, replayed`, acpScenarioProvider(agent), channels[i]!, {
    timeoutMs: 45_000,
  }),
);
