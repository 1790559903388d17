import { describe, expect, it } from 'vitest';
import type { BatonApp } from '../../src/app/baton-app.js';
import type { ModelTurn, RecordedRequest } from '../../src/providers/model/scripted-model-server.js';
import { streamSnapshot } from '../../src/server/streams.js';
import { useBatons } from '../support/baton-app.js';
import { tempDir } from '../support/temp.js';
import { mcpClient, ok, untilCommitted, userText } from './mcp-support.js';

// A delegated task's wake-up (feature-lifecycles "Interruption"): a real Codex parent delegates
// through Baton's MCP server to a real Codex child, both on the scripted model.

const { baton, onCleanup } = useBatons();

const workspace = () => {
  const ws = tempDir('baton-wake-ws-');
  onCleanup(ws.cleanup);
  return ws.dir;
};

const WAKE = '[Baton] A task you delegated has ended';
const runsOf = (app: BatonApp, threadId: string) => app.runtime.store.projections.list('runs', threadId);
const wakeRuns = (app: BatonApp, threadId: string) => runsOf(app, threadId).filter((r) => r.origin);
const taskRow = (app: BatonApp, taskId: string) => app.runtime.store.projections.get('delegated_tasks', taskId);
const runStatus = (app: BatonApp, runId: string) => app.runtime.store.projections.get('runs', runId)?.status;
const called = (request: RecordedRequest, callId: string) => JSON.stringify(request.body.input).includes(callId);
/** What a tool call answered the model (its function_call_output in a later request), as text. */
function outputOf(request: RecordedRequest, callId: string): string {
  const input = Array.isArray(request.body.input) ? (request.body.input as Record<string, unknown>[]) : [];
  const item = input.find((i) => i.type === 'function_call_output' && i.call_id === callId);
  return JSON.stringify(item?.output ?? null);
}

/** The model calls one of Baton's MCP tools (Codex finds a deferred MCP tool with tool_search first). */
const batonTool = (name: string, args: Record<string, unknown>, callId: string): ModelTurn[] => [
  { kind: 'tool_search', query: name },
  { kind: 'call', namespace: 'mcp__baton', name, args, callId },
];

/** Answers the approvals the Baton's threads ask for, but those `held` keeps for the test to answer. */
function approveAllBut(app: BatonApp, held: (prompt: string) => boolean) {
  const answered = new Set<string>();
  onCleanup(
    app.runtime.onEvents(() => {
      for (const r of app.runtime.store.projections.list('requests')) {
        if (r.status !== 'pending' || answered.has(r.id) || held(JSON.stringify(r))) continue;
        answered.add(r.id);
        void app.runtime.dispatch({
          type: 'runtime-request.respond',
          commandId: `cmd_approve_${r.id}`,
          requestId: r.id,
          decision: 'accept',
        });
      }
    }),
  );
}

describe('a delegated task wakes its parent', () => {
  it('a parent whose run ended gets one wake-up run carrying the task’s result, and its agent is told it', async () => {
    const childTask = 'child: add two and forty';
    const parentSteps: ModelTurn[] = [
      ...batonTool('delegate_task', { task: childTask, clientRequestId: 'wake-1' }, 'call_delegate'),
      { kind: 'text', text: 'Delegated; I will be told.' },
    ];
    const woken: RecordedRequest[] = [];
    let parentStep = 0;
    const app = await baton((request) => {
      const text = userText(request);
      if (text.includes(WAKE)) return (woken.push(request), { kind: 'text', text: 'Thanks: noted.' });
      // The child runs a command that needs an approval: it ends only when the test answers it.
      if (text.includes(childTask))
        return called(request, 'call_gate')
          ? { kind: 'text', text: 'The sum is 42.' }
          : { kind: 'exec', command: 'echo gated-child', escalated: true, callId: 'call_gate' };
      return parentSteps[parentStep++] ?? { kind: 'text', text: 'more' };
    });
    approveAllBut(app, (request) => request.includes('gated-child'));
    const client = await mcpClient(app, onCleanup);
    const parent = await ok(client, 'thread_start', { cwd: workspace(), text: 'parent: get the sum from a helper' });
    const store = app.runtime.store;
    const task = () => store.projections.list('threads').find((t) => t.lineage.parentThreadId === parent.threadId);
    const gate = () =>
      store.projections.list('requests').find((r) => r.status === 'pending' && r.threadId === task()?.id);
    await untilCommitted(
      app,
      () => runStatus(app, parent.runId) === 'completed' && gate() !== undefined,
      'the parent run to end while its task waits on an approval',
      90_000,
    );
    const taskId = task()!.id;
    expect(taskRow(app, taskId)).toMatchObject({
      threadId: parent.threadId,
      delegatingRunId: parent.runId,
      wake: 'awaiting_end',
      endStatus: null,
    });
    expect(runsOf(app, parent.threadId)).toHaveLength(1);

    await app.runtime.dispatch({
      type: 'runtime-request.respond',
      commandId: 'cmd_open_gate',
      requestId: gate()!.id,
      decision: 'accept',
    });
    await untilCommitted(
      app,
      () => wakeRuns(app, parent.threadId).some((r) => r.status === 'completed'),
      'the wake-up run to complete',
      90_000,
    );
    const [taskRun] = runsOf(app, taskId);
    const [wake] = wakeRuns(app, parent.threadId);
    expect(taskRun).toMatchObject({ status: 'completed' });
    // The run says what it is (the thread snapshot's runs are these rows).
    expect(wake!.origin).toEqual({ kind: 'task_wake', taskId, taskRunId: taskRun!.id, status: 'completed' });
    expect(taskRow(app, taskId)).toMatchObject({ wake: 'queued', wakeRunId: wake!.id, endStatus: 'completed' });
    // Its message tells the task, its thread, its status and its result: the parent's model was asked with it.
    expect(woken).toHaveLength(1);
    const told = userText(woken[0]!);
    for (const fact of [`taskId: ${taskId}`, `threadId: ${taskId}`, 'status: completed', 'The sum is 42.'])
      expect(told).toContain(fact);
    expect(await ok(client, 'task_status', { taskId })).toMatchObject({
      done: true,
      result: 'The sum is 42.',
      wake: { status: 'queued', runId: wake!.id },
    });
    // Clients see it too: the thread snapshot lists the task, thread_read names the run's origin.
    const snapshot = streamSnapshot(app.runtime.store, { stream: 'thread', threadId: parent.threadId });
    expect(snapshot).toMatchObject({ delegatedTasks: [{ id: taskId, wake: 'queued', wakeRunId: wake!.id }] });
    const read = await ok(client, 'thread_read', { threadId: parent.threadId });
    expect(read).toMatchObject({
      runs: expect.arrayContaining([expect.objectContaining({ runId: wake!.id, origin: wake!.origin })]),
    });
    // One wake-up per task: nothing more comes of it.
    await app.runtime.settle();
    expect(runsOf(app, parent.threadId).map((r) => r.origin?.kind ?? 'message')).toEqual(['message', 'task_wake']);
  }, 150_000);

  it('a task whose end the parent’s agent read with thread_wait owes no wake-up, nor one delegated with wake: false', async () => {
    let readTaskId = '';
    let parentStep = 0;
    const app = await baton((request) => {
      const text = userText(request);
      if (text.includes(WAKE)) return { kind: 'text', text: 'woken' };
      if (text.includes('child: ')) return { kind: 'text', text: `Done: ${text.includes('read me') ? 'A' : 'B'}.` };
      const step = parentStep++;
      const steps: ModelTurn[] = [
        ...batonTool('delegate_task', { task: 'child: read me', clientRequestId: 'read-1' }, 'call_read'),
        // Codex has found delegate_task: no second search.
        {
          kind: 'call',
          namespace: 'mcp__baton',
          name: 'delegate_task',
          args: { task: 'child: do not wake me', wake: false, clientRequestId: 'quiet-1' },
          callId: 'call_quiet',
        },
      ];
      if (step === 3) {
        readTaskId = /taskId\\*":\\*"(thr_[^"\\]+)/.exec(outputOf(request, 'call_read'))?.[1] ?? 'no-task-id';
        const args = { threadId: readTaskId, timeoutMs: 60_000 };
        return { kind: 'call', namespace: 'mcp__baton', name: 'thread_wait', args, callId: 'call_wait' };
      }
      return steps[step] ?? { kind: 'text', text: 'I read my helper’s answer.' };
    });
    approveAllBut(app, () => false);
    const client = await mcpClient(app, onCleanup);
    const parent = await ok(client, 'thread_start', { cwd: workspace(), text: 'parent: two helpers' });
    const tasks = () =>
      app.runtime.store.projections.list('delegated_tasks', parent.threadId).filter((t) => t.endStatus !== null);
    await untilCommitted(
      app,
      () => runStatus(app, parent.runId) === 'completed' && tasks().length === 2,
      'the parent run and both tasks to end',
      120_000,
    );
    // Every step a run's end or a task's end set going has committed: a wake-up owed would be queued by now.
    await app.runtime.settle();
    const [read, quiet] = app.runtime.store.projections.list('delegated_tasks', parent.threadId);
    expect(read).toMatchObject({ id: readTaskId, wake: 'read', endStatus: 'completed', wakeRunId: null });
    expect(read!.reason).toContain('thread_wait');
    expect(quiet).toMatchObject({ wake: 'declined', endStatus: 'completed', wakeRunId: null });
    expect(runsOf(app, parent.threadId)).toHaveLength(1);
    // A read with Baton's own token is not the agent's: it changes nothing.
    expect(await ok(client, 'task_status', { taskId: quiet!.id })).toMatchObject({ wake: { status: 'declined' } });
  }, 150_000);
});
