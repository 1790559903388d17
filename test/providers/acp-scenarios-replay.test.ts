import { afterEach, describe, expect, it } from 'vitest';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { TranscriptEntry } from '../../src/providers/transport/transcript.js';
import { runScenario, type ScenarioOutcome } from '../support/scenario-kit/runner.js';
import { applicableScenarios, providerScenarios } from '../support/scenario-kit/scenarios.js';
import { assistantTexts, runtimeWarnings } from '../support/scenario-kit/baton.js';
import { dataDirOf } from '../support/scenario-kit/agent-providers.js';
import { readFrameLogs } from '../support/frame-logs.js';
import { TempFolders } from '../support/temp.js';
import { acpAgentProcesses, type BuiltInAgent } from '../support/live-acp.js';
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

describe('a replayed ACP agent with bad frames', () => {
  const folders = new TempFolders();
  const outcomes: ScenarioOutcome[] = [];
  afterEach(() => {
    outcomes.splice(0).forEach((o) => o.close());
    folders.removeAll();
  });

  it('a garbled or truncated line is answered as the ACP SDK answers it, logged and told as a warning; the run is unharmed', async () => {
    const channel = channels[0]!;
    // Inserted in memory right after Baton's prompt; the SDK answers each with a parse error.
    channel.entriesFor = (entries) => {
      const at = entries.findIndex(
        (e) => e.kind === 'expect_outbound' && (e.frame as { method?: string }).method === 'session/prompt',
      );
      const parseError = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
      const bad: TranscriptEntry[] = [
        { kind: 'emit_inbound', raw: '{"jsonrpc":"2.0","method":"session/update","params":{"sess' },
        { kind: 'expect_outbound', frame: parseError },
        { kind: 'emit_inbound', raw: 'this is not json at all' },
        { kind: 'expect_outbound', frame: parseError },
      ];
      return [...entries.slice(0, at + 1), ...bad, ...entries.slice(at + 1)];
    };
    const simple = providerScenarios.find((s) => s.name === 'simple')!;
    const dir = folders.make('baton-acp-replay-run-');
    const place = { cwd: realpathSync(folders.make('baton-acp-replay-ws-')), dir, checkpointsRoot: join(dir, 'cp') };
    const outcome = await runScenario(simple.drive, channel.open(simple, place), place);
    outcomes.push(outcome);
    const { h } = outcome;
    expect(channel.replays[0]!.mismatches).toEqual([]);
    expect(assistantTexts(h, 'thr_simple')).toEqual(['Hello from Codex, offline.']);
    expect(runtimeWarnings(h, 'thr_simple')).toEqual([
      'unreadable claude-agent-acp frame (not a JSON object (garbled or truncated)); it was logged and skipped',
      'unreadable claude-agent-acp frame (not a JSON object (garbled or truncated)); it was logged and skipped',
    ]);
    const frames = readFrameLogs(join(dataDirOf(dir), 'acp', 'claude-agent-acp', 'thr_simple', 'frames'));
    expect(frames.filter((f) => f.problem).map((f) => f.frame)).toEqual([
      '{"jsonrpc":"2.0","method":"session/update","params":{"sess',
      'this is not json at all',
    ]);
    const methods = (dir: string) =>
      frames.filter((f) => f.dir === dir).map((f) => (f.frame as { method?: string }).method);
    expect(methods('out')).toContain('session/prompt');
    expect(methods('in')).toContain('session/update');
  });
});
