import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import type { ErrorCode } from '../../src/domain/errors.js';
import { providerTakesAnswers } from '../support/provider-stand-in.js';
import { useRuntime, type Harness } from '../support/runtime.js';

/**
 * Every field a command accepts either takes effect or is refused with a typed error that
 * stores nothing. What a field does to Codex itself (sandbox, approvals, model) is shown
 * live in test/providers/codex-settings-live.test.ts; here, that it reaches the turn the
 * provider is asked to start, and every refusal.
 */
const open = useRuntime({ handlers: () => ({ 'provider.runtime-request.respond': providerTakesAnswers }) });

let n = 0;
async function ok(h: Harness, command: Record<string, unknown>): Promise<Record<string, unknown>> {
  const ack = (await h.command(command)) as { ok: boolean; result: Record<string, unknown> };
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
  return ack.result;
}

/** The command is refused with `code`, and nothing changes: no event (a receipt may keep the refusal, for a retry of the same commandId). */
async function refused(h: Harness, command: Record<string, unknown>, code: ErrorCode, message?: RegExp): Promise<void> {
  const before = h.store.lastSequence();
  const commandId = `cmd_refused_${++n}`;
  const ack = (await h.command({ commandId, ...command })) as { ok: boolean; error: { code: string; message: string } };
  expect(ack, JSON.stringify(ack)).toMatchObject({ ok: false, error: { code } });
  if (message) expect(ack.error.message).toMatch(message);
  expect(h.store.lastSequence()).toBe(before);
  const receipt = h.store.receipts.get(commandId);
  if (receipt) expect(receipt).toMatchObject({ ok: false });
}

const send = (h: Harness, threadId: string, text: string, extra: Record<string, unknown> = {}) =>
  ok(h, { type: 'thread.message.send', threadId, text, ...extra }) as Promise<{ runId: string; dispatched: string }>;
const turnStart = (h: Harness, threadId: string) => h.effect('provider.turn.start', threadId).payload;

async function started(h: Harness, threadId: string) {
  const t = h.turn(threadId);
  await h.feed({
    type: 'turn.started',
    threadId,
    runId: t.runId,
    attemptId: t.attemptId,
    nodeId: t.rootNodeId,
    nativeTurnRef: `turn_${t.attemptId}`,
  });
  return t;
}

async function finish(h: Harness, threadId: string) {
  const t = h.turn(threadId);
  await h.feed({
    type: 'turn.completed',
    threadId,
    runId: t.runId,
    attemptId: t.attemptId,
    nodeId: t.rootNodeId,
    status: 'completed',
    error: null,
  });
  await h.until(() => h.store.projections.get('runs', t.runId)!.status === 'completed');
}

describe('thread.create: every field acts or is refused', () => {
  it("title, cwd, model, runtimeMode and interactionMode are the thread's, and the first turn asks the provider for them", async () => {
    const h = open();
    const threadId = await h.thread({
      title: 'Named',
      model: 'gpt-x',
      runtimeMode: 'full_access',
      interactionMode: 'plan',
    });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({
      title: 'Named',
      model: 'gpt-x',
      runtimeMode: 'full_access',
      interactionMode: 'plan',
      provider: 'codex',
    });
    await send(h, threadId, 'go');
    expect(turnStart(h, threadId)).toMatchObject({
      provider: 'codex',
      model: 'gpt-x',
      runtimeMode: 'full_access',
      interactionMode: 'plan',
    });
  });

  it("defaults: workspace_write, default interaction, no model (the provider endpoint's)", async () => {
    const h = open();
    const threadId = await h.thread();
    await send(h, threadId, 'go');
    expect(turnStart(h, threadId)).toMatchObject({
      model: null,
      runtimeMode: 'workspace_write',
      interactionMode: 'default',
    });
  });

  it('a provider this Baton does not have (claude, acp) is refused unsupported at the command', async () => {
    const h = open();
    for (const provider of ['claude', 'acp']) {
      await refused(
        h,
        { type: 'thread.create', cwd: join(dirname(h.path), 'workspace'), provider },
        'unsupported',
        new RegExp(`no ${provider} provider`),
      );
    }
    expect(h.store.projections.list('threads')).toEqual([]);
  });
});

describe('thread.message.send: every field acts or is refused', () => {
  it("model is the run's own (its turn asks for it); the next run without one uses the thread's", async () => {
    const h = open();
    const threadId = await h.thread({ model: 'thread-model' });
    const a = await send(h, threadId, 'one', { model: 'run-model' });
    expect(h.store.projections.get('runs', a.runId)).toMatchObject({ model: 'run-model' });
    expect(turnStart(h, threadId)).toMatchObject({ model: 'run-model' });
    await started(h, threadId);
    await finish(h, threadId);
    await send(h, threadId, 'two');
    expect(turnStart(h, threadId)).toMatchObject({ model: 'thread-model' });
  });

  it("provider: the thread's own is accepted; one this Baton does not run is refused unsupported (switches: test/server/provider-switch-api.test.ts)", async () => {
    const h = open();
    const threadId = await h.thread();
    await refused(
      h,
      { type: 'thread.message.send', threadId, text: 'x', provider: 'claude' },
      'unsupported',
      /no claude provider is available/,
    );
    expect(await send(h, threadId, 'x', { provider: 'codex' })).toMatchObject({ dispatched: 'started' });
  });

  it('mergeBackFromThreadId is no longer a field: refused invalid_command', async () => {
    const h = open();
    const threadId = await h.thread();
    await refused(
      h,
      { type: 'thread.message.send', threadId, text: 'x', mergeBackFromThreadId: threadId },
      'invalid_command',
    );
  });

  it('targetRunId steers the active run it names; any other run is a conflict and changes nothing', async () => {
    const h = open();
    const threadId = await h.thread();
    const first = await send(h, threadId, 'first');
    await started(h, threadId);
    await refused(
      h,
      {
        type: 'thread.message.send',
        threadId,
        text: 'steer',
        dispatchMode: 'steer_active',
        targetRunId: 'run_someother',
      },
      'conflict',
      /not the active run/,
    );
    await refused(
      h,
      {
        type: 'thread.message.send',
        threadId,
        text: 'steer',
        dispatchMode: 'restart_active',
        targetRunId: 'run_someother',
      },
      'conflict',
    );
    expect(await send(h, threadId, 'steer', { dispatchMode: 'steer_active', targetRunId: first.runId })).toEqual(
      expect.objectContaining({ runId: first.runId, dispatched: 'steered' }),
    );
    await finish(h, threadId);
    // The run ended: a steer still aimed at it is refused rather than starting a run of its own.
    await refused(
      h,
      { type: 'thread.message.send', threadId, text: 'late', dispatchMode: 'steer_active', targetRunId: first.runId },
      'conflict',
      /active: none/,
    );
    expect(h.store.projections.list('runs', threadId)).toHaveLength(1);
  });

  it('targetRunId with a dispatch mode that does not steer is refused invalid_command', async () => {
    const h = open();
    const threadId = await h.thread();
    const first = await send(h, threadId, 'first');
    for (const dispatchMode of [undefined, 'auto', 'queue_after_active', 'start_immediately']) {
      await refused(
        h,
        {
          type: 'thread.message.send',
          threadId,
          text: 'x',
          targetRunId: first.runId,
          ...(dispatchMode ? { dispatchMode } : {}),
        },
        'invalid_command',
        /targetRunId/,
      );
    }
  });
});

describe('thread.settings.update: every field acts or is refused', () => {
  it('title, model, runtimeMode and interactionMode apply from the next run, a queued one included', async () => {
    const h = open();
    const threadId = await h.thread({ runtimeMode: 'read_only' });
    await send(h, threadId, 'one');
    await started(h, threadId);
    const queued = await send(h, threadId, 'two', { dispatchMode: 'queue_after_active' });
    await ok(h, {
      type: 'thread.settings.update',
      threadId,
      title: 'Renamed',
      model: 'next-model',
      runtimeMode: 'workspace_write',
      interactionMode: 'plan',
    });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({
      title: 'Renamed',
      model: 'next-model',
      runtimeMode: 'workspace_write',
      interactionMode: 'plan',
    });
    // The active run keeps what it started with.
    expect(turnStart(h, threadId)).toMatchObject({ runtimeMode: 'read_only', interactionMode: 'default' });
    await finish(h, threadId);
    // The queued run starts now, under the settings as they are now (its model was fixed when it was sent).
    expect(h.turn(threadId).runId).toBe(queued.runId);
    expect(turnStart(h, threadId)).toMatchObject({
      runtimeMode: 'workspace_write',
      interactionMode: 'plan',
      model: null,
    });
    await started(h, threadId);
    await finish(h, threadId);
    await send(h, threadId, 'three');
    expect(turnStart(h, threadId)).toMatchObject({
      model: 'next-model',
      runtimeMode: 'workspace_write',
      interactionMode: 'plan',
    });
  });

  it("provider: the thread's own is accepted; one this Baton does not run is refused unsupported", async () => {
    const h = open();
    const threadId = await h.thread();
    await refused(
      h,
      { type: 'thread.settings.update', threadId, provider: 'acp', acpAgent: 'a' },
      'unsupported',
      /no acp provider is available/,
    );
    await ok(h, { type: 'thread.settings.update', threadId, provider: 'codex' });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ provider: 'codex' });
  });

  it('an update that names no setting is refused invalid_command', async () => {
    const h = open();
    const threadId = await h.thread();
    await refused(h, { type: 'thread.settings.update', threadId }, 'invalid_command', /names no setting/);
  });
});

describe("the other commands' fields", () => {
  it('run.interrupt holdQueue holds the queue, and without it the queue goes on', async () => {
    const h = open();
    const threadId = await h.thread();
    const first = await send(h, threadId, 'one');
    await started(h, threadId);
    await ok(h, { type: 'run.interrupt', runId: first.runId, holdQueue: true });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ queueHeld: true });
    const other = await h.thread();
    const second = await send(h, other, 'one');
    await started(h, other);
    await ok(h, { type: 'run.interrupt', runId: second.runId });
    expect(h.store.projections.get('threads', other)).toMatchObject({ queueHeld: false });
  });

  it('runtime-request.respond: an approval takes a decision and no answers; questions take answers, or a decline or cancel', async () => {
    const h = open();
    const threadId = await h.thread();
    await send(h, threadId, 'one');
    const t = await started(h, threadId);
    await h.feed({
      type: 'request.opened',
      threadId,
      runId: t.runId,
      requestId: 'req_a',
      nodeId: 'node_req_a',
      parentNodeId: t.rootNodeId,
      kind: 'command',
      prompt: 'ls?',
      details: {},
      providerSessionId: 'psess_1',
    });
    await refused(
      h,
      { type: 'runtime-request.respond', requestId: 'req_a', decision: 'accept', answers: { q: 'yes' } },
      'invalid_command',
      /no answers/,
    );
    await refused(h, { type: 'runtime-request.respond', requestId: 'req_a', answers: { q: 'yes' } }, 'invalid_command');
    await ok(h, { type: 'runtime-request.respond', requestId: 'req_a', decision: 'accept' });
    await h.feed({
      type: 'request.opened',
      threadId,
      runId: t.runId,
      requestId: 'req_q',
      nodeId: 'node_req_q',
      parentNodeId: t.rootNodeId,
      kind: 'user_input',
      prompt: 'which?',
      details: {},
      providerSessionId: 'psess_1',
    });
    for (const wrong of [
      { decision: 'accept', answers: { q: 'yes' } },
      { decision: 'decline', answers: { q: 'yes' } },
      { decision: 'accept' },
      { decision: 'acceptForSession' },
      {},
    ])
      await refused(
        h,
        { type: 'runtime-request.respond', requestId: 'req_q', ...wrong },
        'invalid_command',
        /answers, or the decision decline or cancel/,
      );
    await ok(h, { type: 'runtime-request.respond', requestId: 'req_q', answers: { q: 'yes' } });
  });

  it('queued-run.reorder order: a permutation of the queue is applied; anything else is refused', async () => {
    const h = open();
    const threadId = await h.thread();
    await send(h, threadId, 'active');
    await started(h, threadId);
    const a = await send(h, threadId, 'a', { dispatchMode: 'queue_after_active' });
    const b = await send(h, threadId, 'b', { dispatchMode: 'queue_after_active' });
    await refused(h, { type: 'queued-run.reorder', threadId, order: [b.runId] }, 'invalid_transition');
    await ok(h, { type: 'queued-run.reorder', threadId, order: [b.runId, a.runId] });
    await finish(h, threadId);
    expect(h.turn(threadId).runId).toBe(b.runId);
  });

  it('thread.fork: title names the fork; a node or checkpoint source that does not exist is not_found', async () => {
    const h = open();
    const threadId = await h.thread({ title: 'Source' });
    const run = await send(h, threadId, 'one');
    await started(h, threadId);
    await finish(h, threadId);
    const fork = (await ok(h, {
      type: 'thread.fork',
      sourceThreadId: threadId,
      source: { type: 'run', threadId, runId: run.runId },
      title: 'My fork',
    })) as { threadId: string };
    expect(h.store.projections.get('threads', fork.threadId)).toMatchObject({ title: 'My fork' });
    await refused(
      h,
      { type: 'thread.fork', sourceThreadId: threadId, source: { type: 'node', nodeId: 'node_x' } },
      'not_found',
    );
    await refused(
      h,
      {
        type: 'thread.fork',
        sourceThreadId: threadId,
        source: { type: 'checkpoint', threadId, checkpointId: 'ckpt_x' },
      },
      'not_found',
    );
  });

  it('thread.merge_back: fromThreadId must be a fork of the thread (merge-backs: test/server/merge-back-api.test.ts)', async () => {
    const h = open();
    const threadId = await h.thread();
    const other = await h.thread();
    await refused(h, { type: 'thread.merge_back', threadId, fromThreadId: other }, 'invalid_command', /not a fork/);
  });
});
