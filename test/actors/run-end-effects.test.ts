import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { realpathSync } from 'node:fs';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import type { ProviderCapabilities } from '../../src/domain/capabilities.js';
import { idOf, ThreadId } from '../../src/domain/ids.js';
import { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { streamSnapshot } from '../../src/server/streams.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { providerLosesAnswers, providerTakesAnswers } from '../support/provider-stand-in.js';
import { tempDir } from '../support/temp.js';

/**
 * When a run's live work ends (a restart, a lost provider, an interrupt by policy, its
 * turn's end), nothing more is asked of the provider for it: its waiting provider effects
 * are cancelled in that commit, a handler refuses a stale one, and its requests end.
 */
const answering = useRuntime({ handlers: () => ({ 'provider.runtime-request.respond': providerTakesAnswers }) });
const losingAnswers = useRuntime({ handlers: () => ({ 'provider.runtime-request.respond': providerLosesAnswers }) });
const noInterrupt = useRuntime({
  capabilities: (p): ProviderCapabilities => ({
    ...codexCapabilities,
    turns: { ...codexCapabilities.turns, supportsInterrupt: false },
  }),
});

// Codex registered against a dead endpoint: any turn start that got through would start a process.
const gateData = tempDir('baton-gate-');
afterAll(gateData.cleanup);
let gatedCodex: CodexProvider | null = null;
afterEach(() => gatedCodex?.stopAll('SIGKILL'));
const gated = useRuntime({
  handlers: (runtime) =>
    (gatedCodex = new CodexProvider(runtime, {
      endpoint: { baseUrl: 'http://127.0.0.1:9', model: 'none' },
      dataDir: realpathSync(gateData.dir),
    })).handlers(),
});

const providerKinds = [
  'provider.turn.start',
  'provider.turn.steer',
  'provider.turn.interrupt',
  'provider.runtime-request.respond',
];
const send = async (h: Harness, threadId: string, text: string, dispatchMode?: string) =>
  (
    (await h.command({ type: 'thread.message.send', threadId, text, ...(dispatchMode ? { dispatchMode } : {}) })) as {
      result: { runId: string };
    }
  ).result.runId;
/** What any worker could still claim of the provider's effects (far in the future: every lease expired). */
const claimableProviderWork = (h: Harness) =>
  h.store.outbox.claim('probe', h.clock.nowMs() + 3_600_000, 1, 100, providerKinds);

async function openRequest(h: Harness, threadId: string, requestId = 'req_1') {
  const t = h.turn(threadId);
  await h.feed({
    type: 'turn.started',
    threadId,
    runId: t.runId,
    attemptId: t.attemptId,
    nodeId: t.rootNodeId,
    nativeTurnRef: 'turn-1',
  });
  await h.feed({
    type: 'request.opened',
    threadId,
    runId: t.runId,
    requestId,
    nodeId: `node_${requestId}`,
    parentNodeId: t.rootNodeId,
    kind: 'command',
    prompt: 'Run ls?',
    details: {},
    providerSessionId: 'psess_1',
  });
  return t;
}

describe('a run that ends leaves no provider work behind', () => {
  it("recoverAfterRestart cancels the ended run's pending turn start in the same commit: nothing is claimable, and the Codex handler starts no process", async () => {
    const h = answering();
    const threadId = await h.thread();
    const runId = await send(h, threadId, 'hello');
    const turnStart = h.effect('provider.turn.start', threadId);
    expect(turnStart.status).toBe('pending');

    const h2 = h.restart();
    await h2.runtime.recoverAfterRestart();
    expect(h2.store.projections.get('runs', runId)).toMatchObject({ status: 'starting' }); // finalizing: the checkpoint step is still to run
    expect(h2.store.outbox.get(turnStart.id)).toMatchObject({
      status: 'cancelled',
      lastError: expect.stringContaining(`run ${runId} ended interrupted`),
    });
    expect(claimableProviderWork(h2)).toEqual([]);
    await h2.worker.drain();
    expect(h2.store.projections.get('runs', runId)).toMatchObject({ status: 'interrupted' });
    const attempt = h2.store.projections.get('runs', runId)!.attempts[0]!;
    expect(attempt.status).toBe('interrupted');
  });

  it('a turn start leased by the process that died is cancelled too, and is not claimed when its lease expires', async () => {
    const h = answering();
    const threadId = await h.thread();
    const runId = await send(h, threadId, 'hello');
    // The dead process had claimed it: a lease that would expire 30 s later.
    const [leased] = h.store.outbox.claim('dead-worker', h.clock.nowMs(), 30_000, 16, ['provider.turn.start']);
    expect(leased).toMatchObject({ status: 'running', leaseOwner: 'dead-worker' });
    const h2 = h.restart();
    await h2.runtime.recoverAfterRestart();
    h2.clock.advance(60_000);
    expect(claimableProviderWork(h2)).toEqual([]);
    expect(h2.store.outbox.get(leased!.id)).toMatchObject({ status: 'cancelled', leaseOwner: null });
    await h2.worker.drain();
    expect(h2.store.projections.get('runs', runId)).toMatchObject({ status: 'interrupted' });
  });

  it('the worker settles an effect claimed before its run ended cancelled, sends nothing to Codex, and starts no Codex process', async () => {
    const h = gated();
    const provider = gatedCodex!;
    const threadId = await h.thread();
    const runId = await send(h, threadId, 'hello');
    const [claimed] = h.store.outbox.claim(h.worker.owner, h.clock.nowMs(), 30_000, 16, ['provider.turn.start']);
    // The run ends while the worker holds the effect (the commit cancels it under the lease).
    await h.feed({
      type: 'runtime.lost',
      threadId,
      sessionId: null,
      runStatus: 'failed',
      error: { code: 'provider_error', message: 'codex exited' },
    });
    expect(h.store.outbox.get(claimed!.id)).toMatchObject({ status: 'cancelled' });
    await h.worker.carryOut(claimed!);
    expect(provider.adapter(threadId).pid).toBeNull();
    expect(h.store.outbox.get(claimed!.id)).toMatchObject({ status: 'cancelled' });
    // A stale effect still pending (as an older Baton may have left) is settled cancelled by the gate, with its reason.
    const stale = {
      ...claimed!,
      id: idOf('effect', 'eff_stale'),
      status: 'running' as const,
      leaseOwner: h.worker.owner,
    };
    h.store.outbox.add(stale, h.clock.nowMs());
    h.store.outbox.claim(h.worker.owner, h.clock.nowMs(), 30_000, 16, ['provider.turn.start']);
    await h.worker.carryOut(stale);
    expect(h.store.outbox.get('eff_stale')).toMatchObject({
      status: 'cancelled',
      lastError: expect.stringContaining(`run ${runId} is no longer live`),
    });
    expect(provider.adapter(threadId).pid).toBeNull();
    await h.worker.drain();
    expect(h.store.projections.get('runs', runId)).toMatchObject({ status: 'failed' });
  });

  it("a lost provider cancels the run's waiting steer; an interrupt by policy keeps its session stop", async () => {
    const h = answering();
    const threadId = await h.thread();
    const { runId } = await h.running(threadId);
    await send(h, threadId, 'and more', 'steer_active');
    const steer = h.effect('provider.turn.steer', threadId);
    await h.feed({
      type: 'runtime.lost',
      threadId,
      sessionId: null,
      runStatus: 'failed',
      error: { code: 'provider_error', message: 'codex exited' },
    });
    expect(h.store.outbox.get(steer.id)).toMatchObject({
      status: 'cancelled',
      lastError: expect.stringContaining('codex exited'),
    });

    const p = noInterrupt();
    const thread2 = await p.thread();
    const { runId: run2 } = await p.running(thread2);
    await send(p, thread2, 'and more', 'steer_active'); // a native steer waits in the outbox
    expect((await p.command({ type: 'run.interrupt', runId: run2 })).ok).toBe(true);
    const outbox = p.store.outbox.list({ threadId: thread2 });
    expect(outbox.find((e) => e.kind === 'provider.session.stop')).toMatchObject({ status: 'pending' });
    expect(outbox.filter((e) => e.kind.startsWith('provider.turn.')).map((e) => [e.kind, e.status])).toEqual([
      ['provider.turn.start', 'cancelled'],
      ['provider.turn.steer', 'cancelled'],
    ]);
    await p.worker.drain();
    expect(p.store.projections.get('runs', run2)).toMatchObject({ status: 'interrupted' });
    expect(p.store.projections.get('runs', run2)!.attempts[0]).toMatchObject({ status: 'interrupted' });
  });
});

describe('requests end with their callback or their run', () => {
  it('restart with an approval pending: the request ends cancelled with the reason, the pending count is 0, answering is not_resumable', async () => {
    const h = answering();
    const threadId = await h.thread();
    await send(h, threadId, 'run ls');
    await openRequest(h, threadId);
    const h2 = h.restart();
    await h2.runtime.recoverAfterRestart();
    expect(h2.store.projections.get('requests', 'req_1')).toMatchObject({
      status: 'cancelled',
      responseCapability: { type: 'not_resumable', reason: expect.stringContaining('restarted') },
    });
    expect(h2.store.projections.get('threads', threadId)).toMatchObject({ pendingRequestCount: 0 });
    expect(h2.store.projections.get('turn_items', 'req_1')).toMatchObject({
      status: 'cancelled',
      data: { reason: expect.stringContaining('restarted') },
    });
    const before = h2.store.lastSequence();
    expect(await h2.command({ type: 'runtime-request.respond', requestId: 'req_1', decision: 'accept' })).toMatchObject(
      { ok: false, error: { code: 'not_resumable' } },
    );
    expect(h2.store.lastSequence()).toBe(before);
  });

  it('a provider lost while an answer is on its way: the request ends cancelled, never resolved, and its answer is not sent', async () => {
    const h = answering();
    const threadId = await h.thread();
    await send(h, threadId, 'run ls');
    await openRequest(h, threadId);
    expect(await h.command({ type: 'runtime-request.respond', requestId: 'req_1', decision: 'accept' })).toMatchObject({
      ok: true,
      result: { status: 'answering' },
    });
    await h.feed({
      type: 'runtime.lost',
      threadId,
      sessionId: null,
      runStatus: 'failed',
      error: { code: 'provider_error', message: 'codex exited' },
    });
    expect(h.store.projections.get('requests', 'req_1')).toMatchObject({ status: 'cancelled' });
    expect(h.effect('provider.runtime-request.respond', threadId)).toMatchObject({ status: 'cancelled' });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ pendingRequestCount: 0 });
    expect(h.store.events.readThreadAfter(threadId, 0).map((e) => e.type)).not.toContain('runtime-request.resolved');
  });

  it('an answer the provider could not take cancels the request with the reason', async () => {
    const h = losingAnswers();
    const threadId = await h.thread();
    await send(h, threadId, 'run ls');
    await openRequest(h, threadId);
    await h.command({ type: 'runtime-request.respond', requestId: 'req_1', decision: 'accept' });
    await h.worker.drain();
    expect(h.store.projections.get('requests', 'req_1')).toMatchObject({ status: 'cancelled' });
    const cancelled = h.store.events.readThreadAfter(threadId, 0).find((e) => e.type === 'runtime-request.cancelled');
    expect(cancelled?.payload).toMatchObject({ reason: expect.stringContaining('callback is gone') });
  });

  it('a run whose turn ends with a request still open ends that request, with the reason', async () => {
    const h = answering();
    const threadId = await h.thread();
    await send(h, threadId, 'run ls');
    const t = await openRequest(h, threadId);
    await h.feed({
      type: 'turn.completed',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      status: 'completed',
      error: null,
    });
    expect(h.store.projections.get('requests', 'req_1')).toMatchObject({ status: 'cancelled' });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ pendingRequestCount: 0 });
  });
});

describe('requests of an attempt that is replaced, or opened before the turn is reported started', () => {
  const restartSteering = useRuntime({
    capabilities: (p): ProviderCapabilities => ({
      ...codexCapabilities,
      turns: { ...codexCapabilities.turns, supportsActiveSteering: false },
    }),
  });

  it("a steering restart ends the superseded attempt's open request, with the reason", async () => {
    const h = restartSteering();
    const threadId = await h.thread();
    await send(h, threadId, 'run ls');
    const t = await openRequest(h, threadId);
    await send(h, threadId, 'no, run pwd', 'steer_active');
    await h.feed({
      type: 'turn.completed',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      status: 'interrupted',
      error: null,
    });
    expect(h.turn(threadId).attemptId).not.toBe(t.attemptId);
    expect(h.store.projections.get('requests', 'req_1')).toMatchObject({ status: 'cancelled' });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ pendingRequestCount: 0 });
  });

  it('a request opened before turn.started still ends with its run', async () => {
    const h = answering();
    const threadId = await h.thread();
    await send(h, threadId, 'run ls');
    const t = h.turn(threadId);
    await h.feed({
      type: 'request.opened',
      threadId,
      runId: t.runId,
      requestId: 'req_early',
      nodeId: 'node_req_early',
      parentNodeId: t.rootNodeId,
      kind: 'command',
      prompt: 'Run ls?',
      details: {},
      providerSessionId: 'psess_1',
    });
    await h.feed({
      type: 'turn.completed',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      status: 'failed',
      error: null,
    });
    expect(h.store.projections.get('requests', 'req_early')).toMatchObject({ status: 'cancelled' });
  });
});

describe('why a run failed is visible', () => {
  it('the run projection carries its error (code and message only) and the thread keeps its newest warnings', async () => {
    const h = answering();
    const threadId = await h.thread();
    const runId = await send(h, threadId, 'hello');
    const t = h.turn(threadId);
    await h.feed({
      type: 'turn.started',
      threadId,
      runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      nativeTurnRef: null,
    });
    for (let i = 0; i < 25; i++) await h.feed({ type: 'warning', threadId, runId, message: `Codex: retry ${i}` });
    await h.feed({
      type: 'turn.completed',
      threadId,
      runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      status: 'failed',
      error: {
        code: 'provider_error',
        message: 'the model is on fire',
        details: { stack: 'Error: at x.js:1', env: { SECRET: 'x' } },
      },
    });
    await h.worker.drain();
    const run = h.store.projections.get('runs', runId)!;
    expect(run).toMatchObject({ status: 'failed', error: { code: 'provider_error', message: 'the model is on fire' } });
    expect(JSON.stringify(run)).not.toContain('SECRET');
    const terminal = h.store.events.readThreadAfter(threadId, 0).find((e) => e.type === 'run.terminal')!;
    expect(terminal.payload).toMatchObject({
      status: 'failed',
      error: { code: 'provider_error', message: 'the model is on fire' },
    });
    const warnings = h.store.projections.get('threads', threadId)!.warnings;
    expect(warnings).toHaveLength(20);
    expect(warnings.at(-1)).toEqual({ runId, message: 'Codex: retry 24', at: h.clock.nowMs() });
    expect(warnings[0]!.message).toBe('Codex: retry 5');
    // What a client subscribing to the thread gets.
    const snapshot = streamSnapshot(h.store, { stream: 'thread', threadId: ThreadId.parse(threadId) }) as {
      thread: { warnings: unknown[] };
      runs: { error: unknown }[];
    };
    expect(snapshot.runs[0]!.error).toEqual({ code: 'provider_error', message: 'the model is on fire' });
    expect(snapshot.thread.warnings).toEqual(warnings);
  });
});
