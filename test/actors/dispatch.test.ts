import { describe, expect, it } from 'vitest';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import type { ProviderCapabilities } from '../../src/domain/capabilities.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { providerTakesAnswers } from '../support/provider-stand-in.js';

const withNativeSteering = useRuntime({
  handlers: () => ({ 'provider.runtime-request.respond': providerTakesAnswers }),
});
const noNativeSteering = useRuntime({
  capabilities: (p): ProviderCapabilities => ({
    ...codexCapabilities,
    turns: { ...codexCapabilities.turns, supportsActiveSteering: false },
  }),
});

const send = (h: Harness, threadId: string, text: string, dispatchMode?: string) =>
  h.command({ type: 'thread.message.send', threadId, text, ...(dispatchMode ? { dispatchMode } : {}) }) as Promise<{
    ok: boolean;
    result: { runId: string; dispatched: string };
    error?: { code: string };
  }>;

async function finishTurn(h: Harness, threadId: string, status: 'completed' | 'interrupted' | 'failed' = 'completed') {
  const t = h.turn(threadId);
  await h.feed({
    type: 'turn.completed',
    threadId,
    runId: t.runId,
    attemptId: t.attemptId,
    nodeId: t.rootNodeId,
    status,
    error: null,
  });
  await h.worker.drain();
  return t;
}

describe('message dispatch by capability', () => {
  it('steers natively: the message joins the active run, which keeps its attempt', async () => {
    const h = withNativeSteering();
    const threadId = await h.thread();
    const t = await h.running(threadId, 'build it');
    const steer = await send(h, threadId, 'use TypeScript', 'steer_active');
    expect(steer).toMatchObject({ ok: true, result: { runId: t.runId, dispatched: 'steered' } });
    expect(h.effect('provider.turn.steer', threadId).payload).toMatchObject({
      attemptId: t.attemptId,
      text: 'use TypeScript',
    });
    const run = h.store.projections.get('runs', t.runId)!;
    expect(run.attempts.map((a) => a.id)).toEqual([t.attemptId]);
    await finishTurn(h, threadId);
    expect(h.store.projections.get('runs', t.runId)).toMatchObject({ status: 'completed' });
  });

  it('without native steering, interrupts and starts a replacement attempt (steering_restart) under the same run', async () => {
    const h = noNativeSteering();
    const threadId = await h.thread();
    const t1 = await h.running(threadId, 'build it');
    expect(await send(h, threadId, 'actually, in Rust', 'auto')).toMatchObject({
      ok: true,
      result: { dispatched: 'steered' },
    });
    expect(h.effect('provider.turn.interrupt', threadId).payload).toMatchObject({
      attemptId: t1.attemptId,
      reason: 'steering_restart',
    });
    // The interrupted attempt's root turn ends: the run goes on with a new attempt.
    await h.feed({
      type: 'turn.completed',
      threadId,
      runId: t1.runId,
      attemptId: t1.attemptId,
      nodeId: t1.rootNodeId,
      status: 'interrupted',
      error: null,
    });
    const t2 = h.turn(threadId);
    expect(t2.attemptId).not.toBe(t1.attemptId);
    expect(h.effect('provider.turn.start', threadId).payload).toMatchObject({
      reason: 'steering_restart',
      text: 'build it\n\nactually, in Rust',
    });
    let run = h.store.projections.get('runs', t1.runId)!;
    expect(run.status).toBe('running');
    expect(run.attempts.map((a) => [a.reason, a.status])).toEqual([
      ['initial', 'superseded'],
      ['steering_restart', 'pending'],
    ]);
    await h.feed({
      type: 'turn.started',
      threadId,
      runId: t2.runId,
      attemptId: t2.attemptId,
      nodeId: t2.rootNodeId,
      nativeTurnRef: 'turn-2',
    });
    await finishTurn(h, threadId);
    run = h.store.projections.get('runs', t1.runId)!;
    expect(run).toMatchObject({ status: 'completed', ordinal: 1, activeAttemptId: t2.attemptId });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ runCount: 1 });
  });

  it('queues after the active run, keeps order, reorders, cancels and starts the next when the active run ends', async () => {
    const h = withNativeSteering();
    const threadId = await h.thread();
    const a = await send(h, threadId, 'A');
    const b = await send(h, threadId, 'B', 'queue_after_active');
    const c = await send(h, threadId, 'C', 'queue_after_active');
    const d = await send(h, threadId, 'D', 'queue_after_active');
    expect([b, c, d].map((x) => x.result.dispatched)).toEqual(['queued', 'queued', 'queued']);
    expect(await send(h, threadId, 'E', 'start_immediately')).toMatchObject({
      ok: false,
      error: { code: 'invalid_transition' },
    });
    expect(
      await h.command({ type: 'queued-run.reorder', threadId, order: [d.result.runId, b.result.runId] }),
    ).toMatchObject({ ok: false, error: { code: 'invalid_transition' } });
    expect(
      await h.command({
        type: 'queued-run.reorder',
        threadId,
        order: [d.result.runId, c.result.runId, b.result.runId],
      }),
    ).toMatchObject({ ok: true });
    expect(await h.command({ type: 'queued-run.cancel', runId: c.result.runId })).toMatchObject({ ok: true });
    expect(h.store.projections.get('runs', c.result.runId)).toMatchObject({ status: 'cancelled', ordinal: null });

    await finishTurn(h, threadId);
    expect(h.store.projections.get('runs', a.result.runId)).toMatchObject({ status: 'completed', ordinal: 1 });
    expect(h.store.projections.get('runs', d.result.runId)).toMatchObject({ status: 'starting', ordinal: 2 });
    await finishTurn(h, threadId);
    expect(h.store.projections.get('runs', b.result.runId)).toMatchObject({ status: 'starting', ordinal: 3 });
    await finishTurn(h, threadId);
    expect(h.store.projections.list('runs', threadId).map((r) => [r.ordinal, r.status])).toEqual([
      [1, 'completed'],
      [3, 'completed'],
      [null, 'cancelled'],
      [2, 'completed'],
    ]);
  });

  it('promotes a queued message to a steer of the active run', async () => {
    const h = withNativeSteering();
    const threadId = await h.thread();
    const a = await send(h, threadId, 'A');
    const b = await send(h, threadId, 'B', 'queue_after_active');
    expect(await h.command({ type: 'queued-message.promote', runId: b.result.runId })).toMatchObject({
      ok: true,
      result: { runId: a.result.runId },
    });
    expect(h.store.projections.get('runs', b.result.runId)).toMatchObject({ status: 'cancelled' });
    expect(h.effect('provider.turn.steer', threadId).payload).toMatchObject({ text: 'B' });
  });

  it('Stop interrupts and holds the queue: nothing restarts the thread until the user sends again', async () => {
    const h = withNativeSteering();
    const threadId = await h.thread();
    await send(h, threadId, 'A');
    const b = await send(h, threadId, 'B', 'queue_after_active');
    expect(await h.command({ type: 'thread.stop', threadId })).toMatchObject({ ok: true });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ queueHeld: true });
    await finishTurn(h, threadId, 'interrupted');
    expect(h.store.projections.get('runs', b.result.runId)).toMatchObject({ status: 'queued' });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ activeRunId: null, queueHeld: true });
    // An explicit send releases the hold; the queue keeps its order.
    const c = await send(h, threadId, 'C');
    expect(c.result.dispatched).toBe('queued');
    expect(h.store.projections.get('runs', b.result.runId)).toMatchObject({ status: 'starting', ordinal: 2 });
  });

  it('run.interrupt with holdQueue holds the queue too', async () => {
    const h = withNativeSteering();
    const threadId = await h.thread();
    const a = await send(h, threadId, 'A');
    await send(h, threadId, 'B', 'queue_after_active');
    expect(await h.command({ type: 'run.interrupt', runId: a.result.runId, holdQueue: true })).toMatchObject({
      ok: true,
    });
    await finishTurn(h, threadId, 'interrupted');
    expect(h.store.projections.get('threads', threadId)).toMatchObject({
      activeRunId: null,
      queueHeld: true,
      queuedRunCount: 1,
    });
  });
});

describe('runtime requests', () => {
  async function withRequest(h: Harness, kind = 'command') {
    const threadId = await h.thread();
    const t = await h.running(threadId, 'run ls');
    await h.feed({
      type: 'request.opened',
      threadId,
      runId: t.runId,
      requestId: 'req_1',
      nodeId: 'node_req_1',
      parentNodeId: t.rootNodeId,
      kind,
      prompt: 'Run ls?',
      details: { command: 'ls' },
      providerSessionId: 'psess_1',
    });
    return { threadId, ...t };
  }

  it('an approval makes the run wait; accepting sends the response effect, and once the provider takes it the request is resolved and the run runs on', async () => {
    const h = withNativeSteering();
    const { threadId, runId } = await withRequest(h);
    expect(h.store.projections.get('runs', runId)).toMatchObject({ status: 'waiting' });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ pendingRequestCount: 1 });
    expect(await h.command({ type: 'runtime-request.respond', requestId: 'req_1', decision: 'accept' })).toMatchObject({
      ok: true,
      result: { status: 'answering' },
    });
    expect(h.effect('provider.runtime-request.respond', threadId).payload).toMatchObject({
      requestId: 'req_1',
      decision: 'accept',
      providerSessionId: 'psess_1',
    });
    expect(h.store.projections.get('requests', 'req_1')).toMatchObject({ status: 'answering' });
    await h.worker.drain();
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ pendingRequestCount: 0 });
    expect(h.store.projections.get('runs', runId)).toMatchObject({ status: 'running' });
    expect(h.store.projections.get('requests', 'req_1')).toMatchObject({ status: 'resolved' });
    expect(h.store.projections.get('graph_nodes', 'node_req_1')).toMatchObject({
      status: 'completed',
      kind: 'approval_request',
    });
    // Answering twice is a typed conflict that changes nothing.
    const before = h.store.lastSequence();
    expect(await h.command({ type: 'runtime-request.respond', requestId: 'req_1', decision: 'decline' })).toMatchObject(
      { ok: false, error: { code: 'conflict' } },
    );
    expect(h.store.lastSequence()).toBe(before);
  });

  it('a question needs answers (or a decline), not an approval', async () => {
    const h = withNativeSteering();
    await withRequest(h, 'user_input');
    expect(await h.command({ type: 'runtime-request.respond', requestId: 'req_1', decision: 'accept' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_command' },
    });
    expect(
      await h.command({ type: 'runtime-request.respond', requestId: 'req_1', answers: { lang: 'ts' } }),
    ).toMatchObject({ ok: true });
  });

  it('after a restart a pending request ends cancelled, not_resumable, and answering it fails with a typed not_resumable error', async () => {
    const h = withNativeSteering();
    const { threadId, runId, attemptId, rootNodeId } = await withRequest(h);
    const h2 = h.restart();
    expect(await h2.runtime.recoverAfterRestart()).toBe(1);
    expect(h2.store.projections.get('requests', 'req_1')).toMatchObject({
      status: 'cancelled',
      responseCapability: { type: 'not_resumable' },
    });
    expect(h2.store.projections.get('threads', threadId)).toMatchObject({ pendingRequestCount: 0 });
    expect(await h2.command({ type: 'runtime-request.respond', requestId: 'req_1', decision: 'accept' })).toMatchObject(
      { ok: false, error: { code: 'not_resumable' } },
    );
    // The run ended interrupted through the barrier; a late turn end changes nothing.
    await h2.worker.drain();
    await h2.feed({
      type: 'turn.completed',
      threadId,
      runId,
      attemptId,
      nodeId: rootNodeId,
      status: 'completed',
      error: null,
    });
    expect(h2.store.projections.get('runs', runId)).toMatchObject({ status: 'interrupted' });
    expect(h2.store.projections.get('graph_nodes', 'node_req_1')).toMatchObject({ status: 'cancelled' });
  });
});

describe('follow-ups, recovery and rollback', () => {
  it('a follow-up gets ordinal N+1; a failed provider thread is replaced and the next run reseeds through recovery', async () => {
    const h = withNativeSteering();
    const threadId = await h.thread();
    await send(h, threadId, 'one');
    await finishTurn(h, threadId);
    const firstProviderThread = h.store.projections.get('threads', threadId)!.activeProviderThreadId;
    await h.feed({ type: 'thread.failed', threadId, providerThreadId: firstProviderThread, reason: 'resume failed' });
    const two = await send(h, threadId, 'two');
    expect(h.store.projections.get('runs', two.result.runId)).toMatchObject({ ordinal: 2 });
    const start = h.effect('provider.turn.start', threadId);
    expect(start.payload).toMatchObject({ reason: 'provider_recovery' });
    expect(start.payload.providerThreadId).not.toBe(firstProviderThread);
    expect(h.store.projections.get('threads', threadId)!.activeProviderThreadId).toBe(start.payload.providerThreadId);
  });

  it('rollback.toRun marks later runs rolled_back, numbers the next run after the target, and asks for provider reconciliation', async () => {
    const h = withNativeSteering();
    const threadId = await h.thread();
    const runs = [];
    for (const text of ['1', '2', '3', '4']) {
      runs.push((await send(h, threadId, text)).result.runId);
      await finishTurn(h, threadId);
    }
    expect(await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 2 })).toMatchObject({ ok: true });
    expect(runs.map((id) => h.store.projections.get('runs', id)!.status)).toEqual([
      'completed',
      'completed',
      'rolled_back',
      'rolled_back',
    ]);
    expect(h.effect('provider.thread.rollback', threadId).payload).toMatchObject({ runOrdinal: 2 });
    const next = await send(h, threadId, '3 again');
    expect(h.store.projections.get('runs', next.result.runId)).toMatchObject({ ordinal: 3 });
    expect(await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 9 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_transition' },
    });
  });
});

describe('commands: idempotency and bad input', () => {
  it('a duplicate commandId returns the first receipt and starts no second provider turn', async () => {
    const h = withNativeSteering();
    const threadId = await h.thread();
    const cmd = { commandId: 'cmd_dup', type: 'thread.message.send', threadId, text: 'once' };
    const first = await h.runtime.dispatch(cmd);
    const second = await h.runtime.dispatch({ ...cmd, text: 'twice?' });
    expect(second).toEqual(first);
    expect(h.store.outbox.list({ threadId }).filter((e) => e.kind === 'provider.turn.start')).toHaveLength(1);
  });

  it('malformed, unknown-type and unknown-id commands get typed errors and change nothing', async () => {
    const h = withNativeSteering();
    const threadId = await h.thread();
    const before = h.store.lastSequence();
    expect(await h.runtime.dispatch({ commandId: 'c1', type: 'thread.message.send', threadId })).toMatchObject({
      ok: false,
      error: { code: 'invalid_command' },
    });
    expect(await h.runtime.dispatch({ commandId: 'c2', type: 'thread.explode', threadId })).toMatchObject({
      ok: false,
      error: { code: 'unknown_command_type' },
    });
    expect(await h.runtime.dispatch({ commandId: 'c3', type: 'run.interrupt', runId: 'run_nope' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(
      await h.runtime.dispatch({ commandId: 'c4', type: 'thread.message.send', threadId: 'thr_nope', text: 'hi' }),
    ).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await h.runtime.dispatch('garbage')).toMatchObject({ ok: false, error: { code: 'invalid_command' } });
    expect(h.store.lastSequence()).toBe(before);
    // A garbled provider event is refused the same way.
    expect(await h.runtime.ingest({ type: 'turn.completed', threadId, runId: 5 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_payload' },
    });
    expect(h.store.lastSequence()).toBe(before);
  });
});
