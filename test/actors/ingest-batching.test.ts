import { describe, expect, it } from 'vitest';
import { useRuntime, type Harness } from '../support/runtime.js';

const open = useRuntime();

async function streamingRun(h: Harness) {
  const threadId = await h.thread();
  await h.command({ type: 'thread.message.send', threadId, text: 'go' });
  const t = h.turn(threadId);
  await h.feed({
    type: 'turn.started',
    threadId,
    runId: t.runId,
    attemptId: t.attemptId,
    nodeId: t.rootNodeId,
    nativeTurnRef: null,
  });
  const delta = (text: string) => ({
    type: 'message.delta',
    threadId,
    runId: t.runId,
    nodeId: t.rootNodeId,
    messageId: 'msg_stream',
    delta: text,
  });
  return { threadId, ...t, delta };
}

describe('provider events that arrive together', () => {
  it('share steps and commits, and keep their order', async () => {
    const h = open();
    const { delta } = await streamingRun(h);
    const before = h.published.length;
    const commitsBefore = h.store.lastSequence();
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => h.runtime.ingest(delta(`${i} `))));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const text = h.store.projections.get('messages', 'msg_stream')!.text;
    expect(text).toBe(Array.from({ length: 50 }, (_, i) => `${i} `).join(''));
    const deltas = h.published
      .slice(before)
      .filter((e) => e.type === 'message.delta')
      .map((e) => (e.payload as { delta: string }).delta);
    expect(deltas).toEqual(Array.from({ length: 50 }, (_, i) => `${i} `));
    // Fewer steps than events: the first one ran alone, the rest waited and shared.
    const steps = new Set(outcomes.map((o) => o.lastSequence));
    expect(steps.size).toBeLessThan(50);
    expect(h.store.lastSequence()).toBeGreaterThan(commitsBefore);
  });

  it('refuse only the bad event of a shared step; the others commit', async () => {
    const h = open();
    const { threadId, runId, rootNodeId, delta } = await streamingRun(h);
    const request = {
      type: 'request.opened',
      threadId,
      runId,
      requestId: 'req_dup',
      nodeId: 'node_req_dup',
      parentNodeId: rootNodeId,
      kind: 'command',
      prompt: 'ok?',
      details: {},
      providerSessionId: 'psess_1',
    };
    await h.feed(request);
    // The same request opened twice is a conflict; it arrives between two good deltas.
    const [a, bad, b] = await Promise.all([
      h.runtime.ingest(delta('a')),
      h.runtime.ingest({ ...request, nodeId: 'node_req_dup2' }),
      h.runtime.ingest(delta('b')),
    ]);
    expect(a).toMatchObject({ ok: true });
    expect(bad).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(b).toMatchObject({ ok: true });
    expect(h.store.projections.get('messages', 'msg_stream')!.text).toBe('ab');
    expect(h.store.projections.list('requests', threadId)).toHaveLength(1);
  });

  it('do not overtake a command queued before them', async () => {
    const h = open();
    const { threadId, runId, attemptId, rootNodeId, delta } = await streamingRun(h);
    const first = h.runtime.ingest(delta('before '));
    const interrupt = h.command({ type: 'run.interrupt', runId });
    const after = h.runtime.ingest({
      type: 'turn.completed',
      threadId,
      runId,
      attemptId,
      nodeId: rootNodeId,
      status: 'interrupted',
      error: null,
    });
    const [, ack] = await Promise.all([first, interrupt, after]);
    // Had the turn's end overtaken the command, the run would already be finishing and no
    // interrupt would have been requested.
    expect(ack).toMatchObject({ ok: true, result: { runId, holdQueue: false } });
    const events = h.store.events.readThreadAfter(threadId, 0);
    const requested = events.findIndex((e) => e.type === 'run.interrupt-requested');
    const rootEnded = events.findIndex(
      (e) =>
        e.type === 'node.status-changed' &&
        (e.payload as { nodeId: string; to: string }).nodeId === rootNodeId &&
        (e.payload as { to: string }).to === 'interrupted',
    );
    expect(requested).toBeGreaterThan(-1);
    expect(requested).toBeLessThan(rootEnded);
  });
});
