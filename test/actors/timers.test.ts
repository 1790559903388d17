import { describe, expect, it } from 'vitest';
import { useRuntime, type Harness } from '../support/runtime.js';
import { providerTakesAnswers } from '../support/provider-stand-in.js';

const open = useRuntime({
  requestTtlMs: 60_000,
  handlers: () => ({ 'provider.runtime-request.respond': providerTakesAnswers }),
});

async function openRequest(h: Harness, requestId: string) {
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
  await h.feed({
    type: 'request.opened',
    threadId,
    runId: t.runId,
    requestId,
    nodeId: `node_${requestId}`,
    parentNodeId: t.rootNodeId,
    kind: 'command',
    prompt: 'ok?',
    details: {},
    providerSessionId: 'psess_1',
  });
  return { threadId, ...t };
}

describe('durable timers', () => {
  it('expire an unanswered request after its time, across a restart', async () => {
    const h = open();
    const { runId } = await openRequest(h, 'req_t');
    h.clock.advance(59_999);
    const h2 = h.restart();
    expect(await h2.runtime.fireDueTimers()).toBe(0);
    expect(h2.store.projections.get('requests', 'req_t')).toMatchObject({ status: 'pending' });
    h2.clock.advance(1);
    expect(await h2.runtime.fireDueTimers()).toBe(1);
    expect(h2.store.projections.get('requests', 'req_t')).toMatchObject({ status: 'expired' });
    expect(h2.store.projections.get('runs', runId)).toMatchObject({ status: 'running' });
    expect(await h2.runtime.fireDueTimers()).toBe(0);
  });

  it('an answered request cancels its timer', async () => {
    const h = open();
    await openRequest(h, 'req_a');
    expect(await h.command({ type: 'runtime-request.respond', requestId: 'req_a', decision: 'decline' })).toMatchObject(
      { ok: true },
    );
    h.clock.advance(120_000);
    await h.worker.drain();
    expect(await h.runtime.fireDueTimers()).toBe(0);
    expect(h.store.projections.get('requests', 'req_a')).toMatchObject({ status: 'resolved' });
  });
});
