import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import { loadConfig } from '../../src/config.js';
import type { Responder } from '../../src/providers/model/scripted-model-server.js';
import { useBatons } from '../support/baton-app.js';
import { tempDir } from '../support/temp.js';
import { mcpClient, ok, untilCommitted, userText } from './mcp-support.js';

// What a Stop does to the wake-ups a thread's tasks owe it, and a wake-up across restarts.
// Baton's own token delegates for the parent (as an MCP host would); the agents are real Codex
// processes on the scripted model.

const { baton, onCleanup } = useBatons();

const folder = (prefix: string) => {
  const t = tempDir(prefix);
  onCleanup(t.cleanup);
  return t.dir;
};

const WAKE = '[Baton] A task you delegated has ended';
const runsOf = (app: BatonApp, threadId: string) => app.runtime.store.projections.list('runs', threadId);
const wakeRuns = (app: BatonApp, threadId: string) => runsOf(app, threadId).filter((r) => r.origin);
const taskRow = (app: BatonApp, taskId: string) => app.runtime.store.projections.get('delegated_tasks', taskId);
const runStatus = (app: BatonApp, runId: string) => app.runtime.store.projections.get('runs', runId)?.status;

/** Work that goes on until it is stopped (`hang`), a task that answers at once, and the wake-up's answer. */
const model: Responder = (request) => {
  const text = userText(request);
  if (text.includes(WAKE)) return { kind: 'text', text: 'Woken.' };
  if (text.includes('answer now')) return { kind: 'text', text: 'The answer is 7.' };
  return { kind: 'hang' };
};

describe('a Stop drops the wake-ups its thread is owed', () => {
  it('a Stop before the task ends: the task is stopped and wakes nobody', async () => {
    const app = await baton(model);
    const client = await mcpClient(app, onCleanup);
    const created = await ok(client, 'create_threads', { threads: [{ cwd: folder('baton-wake-ws-') }] });
    const parentId: string = created.threads[0].threadId;
    // Delegated from outside any run of the parent: a wake-up awaits its end all the same.
    const task = await ok(client, 'delegate_task', { parentThreadId: parentId, task: 'work until stopped' });
    await untilCommitted(app, () => runStatus(app, task.runId) === 'running', 'the task to run');
    expect(taskRow(app, task.taskId)).toMatchObject({ delegatingRunId: null, wake: 'awaiting_end' });

    await app.runtime.dispatch({ type: 'thread.stop', commandId: 'cmd_stop_parent', threadId: parentId });
    // Dropped in the Stop's own commit, before the cascade reaches the task.
    expect(taskRow(app, task.taskId)).toMatchObject({ wake: 'dropped', reason: 'the thread was stopped' });
    await untilCommitted(
      app,
      () => taskRow(app, task.taskId)?.endStatus === 'interrupted',
      'the stopped task’s end to be recorded on its parent',
    );
    await app.runtime.settle();
    expect(runsOf(app, parentId)).toEqual([]);
    expect(taskRow(app, task.taskId)).toMatchObject({ wake: 'dropped', wakeRunId: null });
  }, 90_000);

  it('the Stop button (run.interrupt with holdQueue) drops a wake-up owed after the run it stops', async () => {
    const app = await baton(model);
    const client = await mcpClient(app, onCleanup);
    const parent = await ok(client, 'thread_start', { cwd: folder('baton-wake-ws-'), text: 'parent work' });
    await untilCommitted(app, () => runStatus(app, parent.runId) === 'running', 'the parent to run');
    const task = await ok(client, 'delegate_task', { parentThreadId: parent.threadId, task: 'answer now' });
    await untilCommitted(app, () => taskRow(app, task.taskId)?.wake === 'owed', 'the wake-up to be owed');

    await ok(client, 'thread_interrupt', { threadId: parent.threadId, holdQueue: true });
    expect(taskRow(app, task.taskId)).toMatchObject({
      wake: 'dropped',
      reason: 'the thread was interrupted with its queue held',
    });
    await untilCommitted(app, () => runStatus(app, parent.runId) === 'interrupted', 'the parent run to end');
    await app.runtime.settle();
    expect(runsOf(app, parent.threadId)).toHaveLength(1);
  }, 90_000);

  it('a Stop after the task ended but before its wake-up ran cancels the queued wake-up run; task_cancel drops one', async () => {
    const app = await baton(model);
    const client = await mcpClient(app, onCleanup);
    const parent = await ok(client, 'thread_start', { cwd: folder('baton-wake-ws-'), text: 'parent work' });
    await untilCommitted(app, () => runStatus(app, parent.runId) === 'running', 'the parent to run');
    const next = await ok(client, 'thread_send', { threadId: parent.threadId, text: 'more work', mode: 'queue' });
    const task = await ok(client, 'delegate_task', { parentThreadId: parent.threadId, task: 'answer now' });
    // Ended while the parent runs: owed once that run ends.
    await untilCommitted(app, () => taskRow(app, task.taskId)?.wake === 'owed', 'the wake-up to be owed');
    expect(taskRow(app, task.taskId)).toMatchObject({ afterRunId: parent.runId, endStatus: 'completed' });
    // Another task, cancelled by its delegator: no wake-up when it ends.
    const cancelled = await ok(client, 'delegate_task', { parentThreadId: parent.threadId, task: 'work on' });
    await untilCommitted(app, () => runStatus(app, cancelled.runId) === 'running', 'the second task to run');
    await ok(client, 'task_cancel', { taskId: cancelled.taskId });
    expect(taskRow(app, cancelled.taskId)).toMatchObject({ wake: 'dropped', reason: 'cancelled by task_cancel' });

    // The run ends; the next queued one starts in its commit; the wake-up queues behind it.
    await ok(client, 'thread_interrupt', { threadId: parent.threadId, runId: parent.runId });
    await untilCommitted(
      app,
      () => runStatus(app, next.runId) === 'running' && wakeRuns(app, parent.threadId).length === 1,
      'the wake-up to queue behind the next run',
    );
    const [wake] = wakeRuns(app, parent.threadId);
    expect(wake).toMatchObject({ status: 'queued', origin: { kind: 'task_wake', taskId: task.taskId } });
    expect(taskRow(app, task.taskId)).toMatchObject({ wake: 'queued', wakeRunId: wake!.id });

    await app.runtime.dispatch({ type: 'thread.stop', commandId: 'cmd_stop_parent', threadId: parent.threadId });
    expect(runStatus(app, wake!.id)).toBe('cancelled');
    expect(taskRow(app, task.taskId)).toMatchObject({ wake: 'dropped', reason: 'the thread was stopped' });
    await untilCommitted(
      app,
      () => runStatus(app, next.runId) === 'interrupted' && taskRow(app, cancelled.taskId)?.endStatus !== null,
      'the parent’s run and the cancelled task to end',
    );
    await app.runtime.settle();
    expect(runsOf(app, parent.threadId).map((r) => r.status)).toEqual(['interrupted', 'interrupted', 'cancelled']);
    expect(taskRow(app, cancelled.taskId)).toMatchObject({ wake: 'dropped', endStatus: 'interrupted' });
  }, 90_000);
});

describe('a wake-up across restarts', () => {
  it('owed when Baton stops, queued once by the next Baton, never again after another restart', async () => {
    const data = join(folder('baton-wake-data-'), 'data');
    const start = async () => {
      const app = await startBaton(
        loadConfig({}, { dataDir: data, port: 0, token: 'wake-test-token-0123456789', model: 'scripted' }),
        pino({ level: 'silent' }),
        { responder: model },
      );
      let stopped = false;
      onCleanup(() => (stopped ? undefined : app.stop()));
      return { app, stop: () => ((stopped = true), app.stop()) };
    };
    const first = await start();
    const client = await mcpClient(first.app, onCleanup);
    const parent = await ok(client, 'thread_start', { cwd: folder('baton-wake-ws-'), text: 'parent work' });
    await untilCommitted(first.app, () => runStatus(first.app, parent.runId) === 'running', 'the parent to run');
    const task = await ok(client, 'delegate_task', { parentThreadId: parent.threadId, task: 'answer now' });
    await untilCommitted(first.app, () => taskRow(first.app, task.taskId)?.wake === 'owed', 'the wake-up to be owed');
    await client.close();
    await first.stop();

    // The restart ends the parent's run (its process is gone): the wake-up owed after it goes now.
    const second = await start();
    await untilCommitted(
      second.app,
      () => wakeRuns(second.app, parent.threadId).some((r) => r.status === 'completed'),
      'the wake-up run to complete',
      90_000,
    );
    expect(runStatus(second.app, parent.runId)).toBe('interrupted');
    await second.app.runtime.settle();
    await second.stop();

    const third = await start();
    await third.app.runtime.settle();
    const runs = runsOf(third.app, parent.threadId);
    expect(runs.map((r) => [r.status, r.origin?.kind ?? 'message'])).toEqual([
      ['interrupted', 'message'],
      ['completed', 'task_wake'],
    ]);
    expect(taskRow(third.app, task.taskId)).toMatchObject({ wake: 'queued', wakeRunId: runs[1]!.id });
  }, 150_000);
});
