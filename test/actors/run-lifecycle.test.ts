import { describe, expect, it } from 'vitest';
import { useRuntime } from '../support/runtime.js';

const open = useRuntime();

async function startedRun(h: ReturnType<typeof open>) {
  const threadId = await h.thread();
  const sent = await h.command({ type: 'thread.message.send', threadId, text: 'hello' });
  expect(sent).toMatchObject({ ok: true, result: { dispatched: 'started' } });
  const runId = (sent as { result: { runId: string } }).result.runId;
  const start = h.effect('provider.turn.start', threadId);
  const { attemptId, rootNodeId } = start.payload as { attemptId: string; rootNodeId: string };
  return { threadId, runId, attemptId, rootNodeId };
}

describe('a run through the runtime', () => {
  it('completes from its root turn only, after the barrier and the checkpoint step', async () => {
    const h = open();
    const { threadId, runId, attemptId, rootNodeId } = await startedRun(h);
    expect(
      await h.runtime.ingest({
        type: 'turn.started',
        threadId,
        runId,
        attemptId,
        nodeId: rootNodeId,
        nativeTurnRef: 't1',
      }),
    ).toMatchObject({ ok: true });
    await h.runtime.ingest({
      type: 'message.delta',
      threadId,
      runId,
      nodeId: rootNodeId,
      messageId: 'msg_p1',
      delta: 'Hel',
    });
    await h.runtime.ingest({
      type: 'message.delta',
      threadId,
      runId,
      nodeId: rootNodeId,
      messageId: 'msg_p1',
      delta: 'lo',
    });
    // A child turn (a subagent) completing does not end the run.
    await h.runtime.ingest({
      type: 'node.started',
      threadId,
      runId,
      nodeId: 'node_sub',
      parentNodeId: rootNodeId,
      attemptId,
      kind: 'subagent',
      title: 'helper',
    });
    await h.runtime.ingest({
      type: 'turn.completed',
      threadId,
      runId,
      attemptId,
      nodeId: 'node_sub',
      status: 'completed',
      error: null,
    });
    expect(h.store.projections.get('runs', runId)).toMatchObject({ status: 'running' });

    await h.runtime.ingest({
      type: 'turn.completed',
      threadId,
      runId,
      attemptId,
      nodeId: rootNodeId,
      status: 'completed',
      error: null,
    });
    // The barrier waits on the checkpoint effect: not terminal yet.
    expect(h.store.projections.get('runs', runId)).toMatchObject({ status: 'running' });
    await h.worker.drain();

    expect(h.store.projections.get('runs', runId)).toMatchObject({ status: 'completed', ordinal: 1 });
    const types = h.store.events
      .readThreadAfter(threadId, 0)
      .map((e) => (e.type === 'run.barrier-step' ? `barrier:${(e.payload as { step: string }).step}` : e.type));
    const barrier = types.filter((t) => t.startsWith('barrier:') || t === 'run.terminal');
    expect(barrier).toEqual([
      'barrier:flush_text',
      'barrier:close_messages',
      'barrier:finalize_plans',
      'barrier:close_children',
      'barrier:checkpoint',
      'run.terminal',
    ]);
    expect(types.indexOf('message.completed')).toBeLessThan(types.indexOf('run.terminal'));
    expect(h.store.projections.get('messages', 'msg_p1')).toMatchObject({
      text: 'Hello',
      completed: true,
      role: 'assistant',
    });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ runCount: 1, activeRunId: null });
    expect(h.published.map((e) => e.sequence)).toEqual(h.store.events.readAfter(0).map((e) => e.sequence));
  });

  it('treats an interrupt return as an acknowledgement; the provider terminal ends the run', async () => {
    const h = open();
    const { threadId, runId, attemptId, rootNodeId } = await startedRun(h);
    await h.runtime.ingest({
      type: 'turn.started',
      threadId,
      runId,
      attemptId,
      nodeId: rootNodeId,
      nativeTurnRef: 't1',
    });
    expect(await h.command({ type: 'run.interrupt', runId })).toMatchObject({ ok: true });
    expect(h.effect('provider.turn.interrupt', threadId).payload).toMatchObject({ attemptId });
    await h.runtime.ingest({ type: 'interrupt.acknowledged', threadId, runId });
    await h.worker.drain();
    expect(h.store.projections.get('runs', runId)).toMatchObject({ status: 'running', interruptRequested: true });
    await h.runtime.ingest({
      type: 'turn.completed',
      threadId,
      runId,
      attemptId,
      nodeId: rootNodeId,
      status: 'interrupted',
      error: null,
    });
    await h.worker.drain();
    expect(h.store.projections.get('runs', runId)).toMatchObject({ status: 'interrupted' });
  });

  it('takes a late provider event for a finished run and attempt without error and without rewriting their rows', async () => {
    const h = open();
    const { threadId, runId, attemptId, rootNodeId } = await startedRun(h);
    await h.runtime.ingest({
      type: 'turn.started',
      threadId,
      runId,
      attemptId,
      nodeId: rootNodeId,
      nativeTurnRef: 't1',
    });
    await h.runtime.ingest({
      type: 'turn.completed',
      threadId,
      runId,
      attemptId,
      nodeId: rootNodeId,
      status: 'completed',
      error: null,
    });
    await h.worker.drain();
    expect(h.store.projections.get('runs', runId)).toMatchObject({ status: 'completed' });
    const rows = () => [runId, attemptId].map((id) => h.store.entities.get(id));
    const before = rows();
    expect(before.every((r) => r?.lastSequence)).toBe(true);

    // The provider repeats its terminal (a reconnect replay, say) after the run has ended.
    expect(
      await h.runtime.ingest({
        type: 'turn.completed',
        threadId,
        runId,
        attemptId,
        nodeId: rootNodeId,
        status: 'completed',
        error: null,
      }),
    ).toMatchObject({ ok: true });
    expect(rows()).toEqual(before);
    expect(h.store.projections.get('runs', runId)).toMatchObject({ status: 'completed' });
  });
});
