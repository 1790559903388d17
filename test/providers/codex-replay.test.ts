import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTranscript, type TranscriptEntry } from '../../src/providers/transport/transcript.js';
import { providerScenarios } from '../support/scenario-kit/scenarios.js';
import { describeScenarios } from '../support/scenario-kit/suite.js';
import { TempFolders } from '../support/temp.js';
import { runScenario } from '../support/scenario-kit/runner.js';
import { CodexReplayChannel } from './codex-scenario-channels.js';
import { codexScenarioProvider, codexScenarios } from './codex-scenarios.js';
import { runtimeWarnings } from '../support/scenario-kit/baton.js';

/**
 * The shared scenarios as Codex plays them, from transcripts recorded off the real binary
 * (`npm run record:codex`): the same scenarios the live suite runs.
 */
const dir = fileURLToPath(new URL('../fixtures/transcripts/codex/', import.meta.url));
const transcripts = readdirSync(dir)
  .filter((f) => f.endsWith('.ndjson'))
  .map((f) => readTranscript(join(dir, f)));
const channel = new CodexReplayChannel(transcripts);

describe('the shared scenarios for Codex', () => {
  it("every one applies to Codex, by its capability declaration, but the fallback for agents whose decline ends the turn (Codex's carries on)", () => {
    expect(codexScenarios.map((s) => s.name)).toEqual(
      providerScenarios.map((s) => s.name).filter((name) => name !== 'approval_decline_ends_turn'),
    );
  });

  it('has a transcript for every scenario, each recorded from the pinned Codex', () => {
    expect([...new Set(transcripts.map((t) => t.header.scenario))].sort()).toEqual(
      codexScenarios.map((s) => s.name).sort(),
    );
    expect(new Set(transcripts.map((t) => t.header.version))).toEqual(new Set(['0.169.0']));
  });
});

describeScenarios('Codex scenarios replayed from recorded transcripts', codexScenarioProvider, channel);

describe('a replayed Codex subagent', () => {
  const folders = new TempFolders();
  afterEach(() => folders.removeAll());

  it("is bound to its native thread: the spawn's child thread, whose turn is never one of the run's", async () => {
    const subagent = providerScenarios.find((s) => s.name === 'subagent')!;
    const recorded = JSON.stringify(channel.sessionsOf('subagent'));
    const childThread = /"agentThreadId":"([^"]+)"/.exec(recorded)![1]!;
    const childTurn = new RegExp(`"threadId":"${childThread}","turn":\\{"id":"([^"]+)"`).exec(recorded)![1]!;
    const runDir = folders.make('baton-replay-run-');
    const place = {
      cwd: realpathSync(folders.make('baton-replay-ws-')),
      dir: runDir,
      checkpointsRoot: join(runDir, 'checkpoints'),
    };
    const { h, close } = await runScenario(subagent.drive, channel.open(subagent, place), place);
    try {
      const node = h.store.projections.list('graph_nodes', 'thr_subagent').find((n) => n.kind === 'subagent')!;
      expect(node.detail).toMatchObject({
        tool: 'spawn_agent',
        agentPath: '/root/work_out_the_answer',
        nativeThreadId: childThread,
        nativeTurnId: childTurn,
      });
      const attempts = h.store.projections.list('runs', 'thr_subagent').flatMap((r) => r.attempts);
      const bound = attempts.flatMap((a) => h.store.bindings.forApp(a.id)).map((b) => b.nativeRef);
      expect(bound.length).toBeGreaterThan(0);
      expect(bound).not.toContain(childTurn);
    } finally {
      close();
    }
  });
});

describe('a replayed Codex session with bad frames', () => {
  const folders = new TempFolders();
  const close: (() => void)[] = [];
  afterEach(() => {
    close.splice(0).forEach((c) => c());
    folders.removeAll();
    channel.entriesFor = (entries) => entries;
  });

  it('garbled, truncated and unknown frames are logged and counted, and the run is not harmed', async () => {
    // The recorded transcript is not edited: bad frames are inserted in memory, after turn/start.
    channel.entriesFor = (entries) => {
      const at =
        entries.findIndex(
          (e) => e.kind === 'expect_outbound' && (e.frame as { method?: string }).method === 'turn/start',
        ) + 1;
      const bad: TranscriptEntry[] = [
        { kind: 'emit_inbound', raw: '{"method":"item/agentMessage/delta","params":{"thr' },
        { kind: 'emit_inbound', raw: 'this is not json at all' },
        { kind: 'emit_inbound', frame: { method: 'totally/unknown', params: { x: 1 } } },
        { kind: 'emit_inbound', frame: { id: 4242, result: {} } },
        { kind: 'emit_inbound', frame: { neither: 'request nor response' } },
      ];
      return [...entries.slice(0, at), ...bad, ...entries.slice(at)];
    };
    const simple = providerScenarios.find((s) => s.name === 'simple')!;
    const runDir = folders.make('baton-replay-run-');
    const place = {
      cwd: realpathSync(folders.make('baton-replay-ws-')),
      dir: runDir,
      checkpointsRoot: join(runDir, 'checkpoints'),
    };
    const { h, close: done } = await runScenario(simple.drive, channel.open(simple, place), place);
    close.push(done);
    expect(channel.replays[0]!.mismatches).toEqual([]);
    expect(channel.providers[0]!.adapter('thr_simple').frameProblems).toEqual({ unreadable: 4, unknown: 1 });
    expect(runtimeWarnings(h, 'thr_simple')).toEqual([
      'unreadable Codex frame (not JSON (garbled or truncated)); it was logged and skipped',
      'unreadable Codex frame (not JSON (garbled or truncated)); it was logged and skipped',
      'unreadable Codex frame (response to unknown request id 4242); it was logged and skipped',
      'unreadable Codex frame (not a JSON-RPC frame); it was logged and skipped',
    ]);
    const frames = join(channel.dataDir, 'codex', 'thr_simple', 'frames');
    const log = readdirSync(frames)
      .map((f) => readFileSync(join(frames, f), 'utf8'))
      .join('');
    expect(log.split('\n').filter((l) => l.includes('"problem"')).length).toBe(4);
    expect(log).toContain('totally/unknown');
  });
});
