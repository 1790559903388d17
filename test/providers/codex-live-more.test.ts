import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import { declaredCapabilities } from '../../src/providers/declared-capabilities.js';
import type { ProviderCapabilities } from '../../src/domain/capabilities.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { tempDir } from '../support/temp.js';

const model = new ScriptedModelServer();
const data = tempDir('baton-codex-more-');
const providers: CodexProvider[] = [];
const endpoint = () => ({ baseUrl: model.baseUrl, model: 'gpt-5.1-codex', streamIdleTimeoutMs: 5_000 });
const codexHandlers = (runtime: Parameters<NonNullable<Parameters<typeof useRuntime>[0]>['handlers'] & {}>[0]) => {
  const provider = new CodexProvider(runtime, { endpoint: endpoint(), dataDir: data.dir });
  providers.push(provider);
  return provider.handlers();
};
const open = useRuntime({ checkpoints: new CheckpointStore({ root: join(data.dir, 'checkpoints') }), handlers: codexHandlers });
const openWithoutSteering = useRuntime({
  handlers: codexHandlers,
  capabilities: (p): ProviderCapabilities => ({ ...declaredCapabilities[p], turns: { ...declaredCapabilities[p].turns, supportsActiveSteering: false } }),
});

beforeAll(async () => {
  await model.start();
});
afterEach(() => {
  providers.splice(0).forEach((p) => p.stopAll('SIGKILL'));
  model.reset();
});
afterAll(async () => {
  await model.stop();
  data.cleanup();
});

async function thread(h: Harness): Promise<{ threadId: string; ws: string }> {
  const ws = tempDir('baton-codex-ws-');
  afterAll(ws.cleanup);
  return { threadId: await h.thread({ cwd: ws.dir }), ws: ws.dir };
}

async function send(h: Harness, threadId: string, text: string, dispatchMode?: string): Promise<{ runId: string; dispatched: string }> {
  const ack = (await h.command({ type: 'thread.message.send', threadId, text, ...(dispatchMode ? { dispatchMode } : {}) })) as { ok: boolean; result: { runId: string; dispatched: string } };
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
  return ack.result;
}

const run = (h: Harness, runId: string) => h.store.projections.get('runs', runId)!;

describe('Codex, live: steering and queueing', () => {
  it('message_steering: a native steer keeps the run and its single attempt', async () => {
    const h = open();
    model.enqueue({ kind: 'hang' }, { kind: 'text', text: 'Steered answer.' });
    const { threadId } = await thread(h);
    const { runId } = await send(h, threadId, 'start slowly');
    await h.until(() => run(h, runId).status === 'running');
    await model.waitForRequests(1);
    expect(await send(h, threadId, 'actually, answer now', 'steer_active')).toMatchObject({ runId, dispatched: 'steered' });
    await h.until(() => run(h, runId).status === 'completed');
    expect(run(h, runId).attempts).toHaveLength(1);
    expect(h.store.projections.list('messages', threadId).filter((m) => m.role === 'assistant').at(-1)!.text).toBe('Steered answer.');
  }, 60_000);

  it('steering_restart_fallback: without native steering, a replacement attempt runs under the same run', async () => {
    const h = openWithoutSteering();
    model.enqueue({ kind: 'hang' }, { kind: 'text', text: 'Restarted answer.' });
    const { threadId } = await thread(h);
    const { runId } = await send(h, threadId, 'start slowly');
    await h.until(() => run(h, runId).status === 'running');
    await model.waitForRequests(1);
    expect(await send(h, threadId, 'change of plan', 'steer_active')).toMatchObject({ runId, dispatched: 'steered' });
    await h.until(() => run(h, runId).status === 'completed');
    expect(run(h, runId).attempts.map((a) => [a.reason, a.status])).toEqual([['initial', 'superseded'], ['steering_restart', 'completed']]);
    expect(run(h, runId).ordinal).toBe(1);
  }, 60_000);

  it('queued_turn: a message queued behind the active run starts when it ends', async () => {
    const h = open();
    model.enqueue({ kind: 'text', text: 'A done.', chunks: ['A ', 'done.'], delayMs: 30 }, { kind: 'text', text: 'B done.' });
    const { threadId } = await thread(h);
    const a = await send(h, threadId, 'A');
    const b = await send(h, threadId, 'B', 'queue_after_active');
    expect(b.dispatched).toBe('queued');
    await h.until(() => run(h, b.runId).status === 'completed');
    expect([run(h, a.runId).ordinal, run(h, b.runId).ordinal]).toEqual([1, 2]);
  }, 60_000);
});

describe('Codex, live: approvals, plans, errors', () => {
  it('approval_request declined: the command does not run and the run completes', async () => {
    const h = open();
    const { threadId, ws } = await thread(h);
    model.enqueue({ kind: 'exec', command: 'echo nope > declined.txt', escalated: true }, { kind: 'text', text: 'Understood.' });
    const { runId } = await send(h, threadId, 'try it');
    await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
    const request = h.store.projections.list('requests', threadId)[0]!;
    expect(await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'decline' })).toMatchObject({ ok: true });
    await h.until(() => run(h, runId).status === 'completed');
    expect(existsSync(join(ws, 'declined.txt'))).toBe(false);
  }, 60_000);

  it('plan and todo artifacts: update_plan becomes a todo list, final after the barrier', async () => {
    const h = open();
    const { threadId } = await thread(h);
    model.enqueue({ kind: 'plan', steps: [{ step: 'read the code', status: 'completed' }, { step: 'write the fix', status: 'in_progress' }] }, { kind: 'text', text: 'Planned.' });
    const { runId } = await send(h, threadId, 'plan it');
    await h.until(() => run(h, runId).status === 'completed');
    const plans = h.store.projections.list('plans', threadId);
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({ kind: 'todo_list', final: true, steps: [{ text: 'read the code', status: 'completed' }, { text: 'write the fix', status: 'in_progress' }] });
  }, 60_000);

  it("provider errors: the run fails with the provider's error visible; the next run works", async () => {
    const h = open();
    const { threadId } = await thread(h);
    model.enqueue({ kind: 'error', status: 500, message: 'the model is on fire' });
    const one = await send(h, threadId, 'first');
    await h.until(() => run(h, one.runId).status === 'failed');
    const terminal = h.store.events.readThreadAfter(threadId, 0).find((e) => e.type === 'run.terminal')!;
    expect(JSON.stringify(terminal.payload)).toMatch(/500|fire|error/i);
    model.enqueue({ kind: 'text', text: 'Recovered.' });
    const two = await send(h, threadId, 'again');
    await h.until(() => run(h, two.runId).status === 'completed');
  }, 60_000);
});

describe('Codex, live: crashes, restarts and rollback', () => {
  it('provider_crash_recovery: SIGKILL mid-turn fails the run; the next message resumes the Codex thread and succeeds', async () => {
    const h = open();
    const { threadId } = await thread(h);
    model.enqueue({ kind: 'text', text: 'Before the crash.' }, { kind: 'hang' });
    const one = await send(h, threadId, 'first');
    await h.until(() => run(h, one.runId).status === 'completed');
    const two = await send(h, threadId, 'second');
    await h.until(() => run(h, two.runId).status === 'running');
    await model.waitForRequests(2);
    const pid = providers[0]!.adapter(threadId).pid!;
    process.kill(pid, 'SIGKILL');
    await h.until(() => run(h, two.runId).status === 'failed');
    expect(h.store.projections.list('sessions', threadId).some((s) => s.status === 'error')).toBe(true);

    model.enqueue({ kind: 'text', text: 'Back again.' });
    const three = await send(h, threadId, 'third');
    await h.until(() => run(h, three.runId).status === 'completed');
    // Resumed, not restarted: the model saw the conversation from before the crash.
    expect(JSON.stringify(model.requests.at(-1)!.body.input)).toContain('Before the crash.');
    expect(run(h, three.runId).ordinal).toBe(3);
  }, 60_000);

  it('restart_recovery: Baton restarts during a pending approval; the request is not_resumable and the thread continues', async () => {
    const h = open();
    const { threadId } = await thread(h);
    model.enqueue({ kind: 'exec', command: 'echo hi', escalated: true });
    const one = await send(h, threadId, 'needs approval');
    await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
    providers.splice(0).forEach((p) => p.stopAll('SIGKILL'));

    const h2 = h.restart();
    await h2.runtime.recoverAfterRestart();
    const request = h2.store.projections.list('requests', threadId)[0]!;
    expect(request.responseCapability.type).toBe('not_resumable');
    expect(await h2.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' })).toMatchObject({ ok: false, error: { code: 'not_resumable' } });
    await h2.until(() => run(h2, one.runId).status === 'interrupted');

    model.enqueue({ kind: 'text', text: 'Still here.' });
    const two = await send(h2, threadId, 'carry on');
    await h2.until(() => run(h2, two.runId).status === 'completed');
  }, 60_000);

  it('thread_rollback: files are restored and thread/revert is carried out', async () => {
    const h = open();
    const { threadId, ws } = await thread(h);
    const file = join(ws, 'story.txt');
    model.enqueue({ kind: 'text', text: 'one' }, { kind: 'text', text: 'two' });
    const one = await send(h, threadId, 'first');
    await h.until(() => run(h, one.runId).status === 'running');
    writeFileSync(file, 'version 1\n');
    await h.until(() => run(h, one.runId).status === 'completed');
    const two = await send(h, threadId, 'second');
    await h.until(() => run(h, two.runId).status === 'running');
    writeFileSync(file, 'version 2\n');
    await h.until(() => run(h, two.runId).status === 'completed');

    expect(await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).toMatchObject({ ok: true });
    await h.until(() => h.store.outbox.list({ threadId }).filter((e) => e.kind === 'provider.thread.rollback').every((e) => e.status === 'completed'));
    expect(readFileSync(file, 'utf8')).toBe('version 1\n');
    expect(run(h, two.runId).status).toBe('rolled_back');
    model.enqueue({ kind: 'text', text: 'after rollback' });
    const three = await send(h, threadId, 'third');
    await h.until(() => run(h, three.runId).status === 'completed');
    // Codex's history no longer holds run 2.
    const input = JSON.stringify(model.requests.at(-1)!.body.input);
    expect(input).toContain('one');
    expect(input).not.toContain('second');
  }, 60_000);
});

describe('Codex, live: the session manager', () => {
  it('approval_request cancelled: cancel answers Codex and the turn ends without running the command', async () => {
    const h = open();
    const { threadId, ws } = await thread(h);
    model.enqueue({ kind: 'exec', command: 'echo nope > cancelled.txt', escalated: true }, { kind: 'text', text: 'Cancelled.' });
    const { runId } = await send(h, threadId, 'try it');
    await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
    const request = h.store.projections.list('requests', threadId)[0]!;
    expect(await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'cancel' })).toMatchObject({ ok: true });
    await h.until(() => ['completed', 'interrupted', 'failed'].includes(run(h, runId).status));
    expect(h.store.projections.get('requests', request.id)).toMatchObject({ status: 'resolved' });
    expect(existsSync(join(ws, 'cancelled.txt'))).toBe(false);
  }, 60_000);

  it('the idle reaper releases the Codex process; the next message resumes the thread through the recovery path', async () => {
    const h = open();
    const { threadId } = await thread(h);
    model.enqueue({ kind: 'text', text: 'Remember: blue.' }, { kind: 'text', text: 'It was blue.' });
    const one = await send(h, threadId, 'remember blue');
    await h.until(() => run(h, one.runId).status === 'completed');
    const provider = providers[0]!;
    const firstPid = provider.adapter(threadId).pid;
    expect(provider.reapIdle()).toBe(1);
    await h.until(() => h.store.projections.list('sessions', threadId).some((s) => s.status === 'stopped'));
    expect(provider.adapter(threadId).running).toBe(false);
    const two = await send(h, threadId, 'what colour?');
    await h.until(() => run(h, two.runId).status === 'completed');
    expect(provider.adapter(threadId).pid).not.toBe(firstPid);
    expect(JSON.stringify(model.requests.at(-1)!.body.input)).toContain('Remember: blue.');
  }, 60_000);
});
