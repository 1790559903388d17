import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { staleEffectReason } from '../../src/actors/live-work-effects.js';
import { NodeId, ProviderSessionId, RunAttemptId, RunId, ThreadId } from '../../src/domain/ids.js';
import type { ProviderEvent } from '../../src/domain/provider-events.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { createClaudeNormalizer } from '../../src/providers/claude/claude-normalizer.js';
import { claudeProvider } from '../../src/providers/claude/claude-provider.js';
import { useRuntime } from '../support/runtime.js';

/**
 * A foreground Claude subagent moved to the background while its ask waits, recorded off the
 * real agent 2.1.332 (test/fixtures/claude/sdk-backgrounded.json): the host's `backgroundTasks`
 * control (Ctrl+B's) makes the agent send `task_updated { is_backgrounded: true }` and the Agent
 * call's `async_launched` result; the parent's turn ends while the ask waits; answered after it,
 * the helper goes on, ends, and the agent runs a turn of its own. Baton never sends that control
 * itself, so the real normalizer is fed the recorded frames and its events go to the runtime as
 * the adapter would hand them over (the ask as ClaudePermissions opens it).
 */
const Frame = z.looseObject({ type: z.string() });
const recorded = z
  .object({
    sent: z.array(z.string()),
    asks: z.array(z.object({ toolUseID: z.string(), agentID: z.string(), afterFrame: z.number() })),
    frames: z.array(Frame),
  })
  .parse(JSON.parse(readFileSync(new URL('../fixtures/claude/sdk-backgrounded.json', import.meta.url), 'utf8')));

const open = useRuntime({ providers: () => [claudeProvider({})], defaultProvider: 'claude' });
type Of<T extends ProviderEvent['type']> = Extract<ProviderEvent, { type: T }>;
const of = <T extends ProviderEvent['type']>(events: ProviderEvent[], type: T): Of<T>[] =>
  events.filter((e): e is Of<T> => e.type === type);

describe('a Claude subagent moved to the background with an ask waiting', () => {
  it('its ask stops being its run’s: the run ends, the ask stays answerable and its answer goes after the run', async () => {
    const { sent, asks, frames } = recorded;
    const h = open();
    const threadId = await h.thread();
    const runId = await h.send(threadId, 'start a helper');
    await h.worker.drain();
    const t = h.turn(threadId);
    const ids = new SequentialIds('fg');
    const n = createClaudeNormalizer({
      threadId: ThreadId.parse(threadId),
      sessionId: ProviderSessionId.parse('psess_fg'),
      ids,
    });
    n.begin(
      {
        runId: RunId.parse(runId),
        attemptId: RunAttemptId.parse(t.attemptId),
        rootNodeId: NodeId.parse(t.rootNodeId),
        uuid: sent[0]!,
        providerThreadId: null,
      },
      null,
    );
    const feed = async (from: number, to: number) => {
      const events = frames.slice(from, to).flatMap((f) => n.normalize(f));
      for (const e of events) await h.feed(e);
      return events;
    };
    const p = h.store.projections;

    // The foreground helper asks: its ask is its run's, and the run waits on it.
    const ask = asks[0]!;
    const before = await feed(0, ask.afterFrame);
    const sub = of(before, 'node.started').find((e) => e.kind === 'subagent')!;
    const at = (await n.askPlace(ask.toolUseID, ask.agentID))!;
    expect(at).toMatchObject({ runId, outlivesRun: false });
    const requestId = ids.next('request');
    await h.feed({
      type: 'request.opened',
      threadId,
      runId,
      requestId,
      nodeId: ids.next('node'),
      parentNodeId: at.parentNodeId,
      kind: 'command',
      prompt: 'echo hi > fg.txt',
      details: { toolName: 'Bash', toolUseId: ask.toolUseID, agentId: ask.agentID },
      providerSessionId: 'psess_fg',
    });
    expect(p.get('runs', runId)?.status).toBe('waiting');

    // The agent moves it to the background: its open ask outlives the run from now on.
    const moved = frames.findIndex((f) => f['subtype'] === 'task_updated');
    const parentEnd = frames.findIndex((f, i) => i > moved && f.type === 'result');
    const ending = await feed(ask.afterFrame, parentEnd + 1);
    expect(of(ending, 'node.outlives_run')).toEqual([
      { type: 'node.outlives_run', threadId, runId, nodeId: sub.nodeId },
    ]);
    expect(of(ending, 'turn.completed')).toMatchObject([{ runId, status: 'completed' }]);
    expect(await n.askPlace(ask.toolUseID, ask.agentID)).toMatchObject({ outlivesRun: true });
    // Its run ends (it no longer waits on the ask), and the ask stays open, still answerable.
    await h.until(() => h.ended(runId));
    expect(p.get('runs', runId)?.status).toBe('completed');
    expect(p.get('requests', requestId)).toMatchObject({ status: 'pending', responseCapability: { type: 'live' } });
    expect(p.get('graph_nodes', sub.nodeId)).toMatchObject({ status: 'running', detail: { background: true } });

    // Answered after the run: the answer is carried out (it is not moot with its run).
    await h.command({ type: 'runtime-request.respond', requestId, decision: 'accept' });
    const respond = h.effect('provider.runtime-request.respond', threadId);
    expect(respond.payload).toMatchObject({ requestId, outlivesRun: true });
    expect(staleEffectReason(h.store, respond)).toBeNull();

    // The helper goes on and ends; the agent's own turn after it asks Baton for a run.
    const rest = await feed(parentEnd + 1, frames.length);
    expect(of(rest, 'node.completed').find((e) => e.nodeId === sub.nodeId)).toMatchObject({ status: 'completed' });
    const [own] = of(rest, 'agent.turn');
    expect(own).toMatchObject({ reason: 'subagent_notification', sourceNodeId: sub.nodeId });
    expect(p.get('runs', own!.runId)).toMatchObject({ origin: { kind: 'agent_turn', nodeId: sub.nodeId } });
    expect(n.unknown).toBe(0);
  });
});
