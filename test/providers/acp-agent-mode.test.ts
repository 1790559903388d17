import { describe, expect, it } from 'vitest';
import { ProviderSessionId, RunAttemptId, RunId, NodeId, ThreadId } from '../../src/domain/ids.js';
import type { ProviderEvent } from '../../src/domain/provider-events.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { AcpNormalizer } from '../../src/providers/acp/acp-normalizer.js';
import { AcpReplay } from '../../src/providers/acp/acp-replay.js';
import { readTranscript, type TranscriptEntry } from '../../src/providers/transport/transcript.js';
import { streamSnapshot } from '../../src/server/streams.js';
import { useLiveAcp } from '../support/live-acp.js';
import { agentModeTranscript } from './acp-agent-mode-transcript.js';
import { acpTranscriptDir } from './acp-replay-channels.js';

/**
 * The mode an ACP agent says it runs in: frames recorded off the real agents through the real
 * normalizer (`mode.updated`), then a recorded claude-agent-acp process replayed under the
 * real runtime, where it becomes `thread.agent-mode-changed` and the thread's `agentMode`.
 */
const threadId = ThreadId.parse('thr_modes');
const exitPlan = readTranscript(agentModeTranscript);
const simple = (agent: string) => readTranscript(`${acpTranscriptDir(agent)}simple.ndjson`);

interface Frame {
  id?: number;
  method?: string;
  params?: { update?: unknown };
  result?: { stopReason?: string };
}

/**
 * One recorded process's frames, played into a normalizer as the adapter plays them: session
 * answers to `opened`, updates to `normalize`, each prompt a turn from `begin` to its stop.
 */
function normalized(entries: TranscriptEntry[]): { events: ProviderEvent[]; runs: RunId[] } {
  const n = new AcpNormalizer({
    threadId,
    sessionId: ProviderSessionId.parse('psess_modes'),
    ids: new SequentialIds(),
  });
  const asked = new Map<number, string>();
  const events: ProviderEvent[] = [];
  const runs: RunId[] = [];
  for (const entry of entries) {
    if (entry.kind === 'runtime_exit') continue;
    const f = entry.frame as Frame;
    if (entry.kind === 'expect_outbound') {
      if (f.method && f.id !== undefined) asked.set(f.id, f.method);
      if (f.method === 'session/prompt') {
        const runId = RunId.parse(`run_${runs.length + 1}`);
        runs.push(runId);
        n.begin({
          runId,
          attemptId: RunAttemptId.parse(`att_${runs.length}`),
          rootNodeId: NodeId.parse(`node_root_${runs.length}`),
          providerThreadId: null,
        });
      }
      continue;
    }
    if (f.method === 'session/update') events.push(...n.normalize({ kind: 'update', update: f.params?.update }));
    const method = f.method === undefined && f.id !== undefined ? asked.get(f.id) : undefined;
    if (method && /^session\/(new|resume|load|fork)$/.test(method)) events.push(...n.opened(f.result));
    if (method === 'session/prompt')
      events.push(...n.normalize({ kind: 'stop', stopReason: f.result?.stopReason ?? 'end_turn' }));
  }
  return { events, runs };
}

const modes = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === 'mode.updated' ? [{ runId: e.runId, modeId: e.modeId, name: e.name }] : []));

describe('the ACP agent mode, normalized', () => {
  it('claude-agent-acp: opened in default, set to acceptEdits, entering plan mode and leaving it itself within the turn, set to acceptEdits again', () => {
    const { events, runs } = normalized(exitPlan.entries);
    expect(runs).toHaveLength(2);
    // current_mode_update and the config_option_update after it say the same once.
    expect(modes(events)).toEqual([
      { runId: null, modeId: 'default', name: 'Default' },
      { runId: null, modeId: 'acceptEdits', name: 'Accept Edits' },
      { runId: runs[0], modeId: 'plan', name: 'Plan Mode' },
      { runId: runs[0], modeId: 'default', name: 'Default' },
      { runId: null, modeId: 'acceptEdits', name: 'Accept Edits' },
    ]);
    for (const e of events) if (e.type === 'mode.updated') expect(e.threadId).toBe(threadId);
  });

  it("both agents: the session/new answer's mode, then the one Baton's set_mode put it in", () => {
    expect(modes(normalized(simple('claude-agent-acp').entries).events)).toEqual([
      { runId: null, modeId: 'default', name: 'Default' },
      { runId: null, modeId: 'acceptEdits', name: 'Accept Edits' },
    ]);
    expect(modes(normalized(simple('codex-acp').entries).events)).toEqual([
      { runId: null, modeId: 'read-only', name: 'Read Only' },
      { runId: null, modeId: 'auto', name: 'Default' },
    ]);
  });

  it('a forked session (session/fork) and one taken up (session/resume) report the mode their answer names', () => {
    const recorded = (agent: string, file: string) =>
      modes(normalized(readTranscript(`${acpTranscriptDir(agent)}${file}`).entries).events)[0];
    expect(recorded('claude-agent-acp', 'fork_native.2.ndjson')).toEqual({
      runId: null,
      modeId: 'default',
      name: 'Default',
    });
    expect(recorded('codex-acp', 'provider_crash_recovery.2.ndjson')).toEqual({
      runId: null,
      modeId: 'read-only',
      name: 'Read Only',
    });
  });

  it('a mode update names a mode its session answer did not list by id only, and is no turn event', () => {
    const n = new AcpNormalizer({ threadId, sessionId: ProviderSessionId.parse('psess_x'), ids: new SequentialIds() });
    expect(n.opened({ sessionId: 's' })).toEqual([]);
    expect(
      n.normalize({ kind: 'update', update: { sessionUpdate: 'current_mode_update', currentModeId: 'x' } }),
    ).toEqual([{ type: 'mode.updated', threadId, runId: null, modeId: 'x', name: null }]);
    expect(
      n.normalize({ kind: 'update', update: { sessionUpdate: 'current_mode_update', currentModeId: 'x' } }),
    ).toEqual([]);
  });
});

describe('the ACP agent mode, replayed under the runtime', () => {
  const acp = useLiveAcp();

  it("claude-agent-acp entering plan mode and leaving it itself: the thread's agentMode follows, its settings stay", async () => {
    let vars: Record<string, string> = {};
    const { h, cwd, dataDir } = await acp.setup({
      provider: { channelFor: () => new AcpReplay(exitPlan.entries, vars, 'exit_plan_mode') },
    });
    vars = { cwd, dataDir };
    const id = await h.thread({
      threadId: String(exitPlan.header.metadata.thread),
      cwd,
      provider: 'acp',
      acpAgent: 'claude-agent-acp',
    });
    const one = await h.send(id, 'plan the fix');
    await h.until(() => h.store.projections.list('requests', id).some((r) => r.status === 'pending'));
    const ask = h.store.projections.list('requests', id)[0]!;
    await h.command({ type: 'runtime-request.respond', requestId: ask.id, decision: 'accept' });
    await h.until(() => h.ended(one));
    const shell = h.store.projections.get('threads', id)!;
    expect(shell.agentMode).toEqual({ id: 'default', name: 'Default' });
    expect(shell.interactionMode).toBe('default');
    const snapshot = streamSnapshot(h.store, { stream: 'thread', threadId: ThreadId.parse(id) }) as {
      thread: typeof shell;
    };
    expect(snapshot.thread.agentMode).toEqual({ id: 'default', name: 'Default' });
    const changed = h.store.events.readThreadAfter(id, 0).filter((e) => e.type === 'thread.agent-mode-changed');
    expect(changed.map((e) => e.payload)).toEqual([
      { threadId: id, runId: null, mode: { id: 'default', name: 'Default' } },
      { threadId: id, runId: null, mode: { id: 'acceptEdits', name: 'Accept Edits' } },
      { threadId: id, runId: one, mode: { id: 'plan', name: 'Plan Mode' } },
      { threadId: id, runId: one, mode: { id: 'default', name: 'Default' } },
    ]);

    // A mode the thread already shows is no new event (a new agent process reports its mode again).
    const again = await h.runtime.ingest({
      type: 'mode.updated',
      threadId: id,
      runId: null,
      modeId: 'default',
      name: 'Default',
    });
    expect(again.ok).toBe(true);
    expect(h.store.events.readThreadAfter(id, 0).filter((e) => e.type === 'thread.agent-mode-changed')).toHaveLength(4);

    const two = await h.send(id, 'and again');
    await h.until(() => h.ended(two));
    expect(h.store.projections.get('threads', id)!.agentMode).toEqual({ id: 'acceptEdits', name: 'Accept Edits' });
    expect(h.published.some((e) => e.type === 'thread.settings-updated')).toBe(false);
  });
});
