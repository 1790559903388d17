import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatonApp } from '../../src/app/baton-app.js';
import type { ModelTurn, RecordedRequest } from '../../src/providers/model/scripted-model-server.js';
import { useBatons } from '../support/baton-app.js';
import { until } from '../support/poll.js';
import { processesIn } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { delegationLiveChannel, runDelegationScenario } from './delegation-channels.js';
import { delegationScenarios } from './delegation-scenarios.js';
import {
  approveAll,
  call,
  lastToolOutput,
  listToolsWith,
  mcpClient,
  ok,
  processEnv,
  untilCommitted,
  userText,
} from './mcp-support.js';

const { baton, onCleanup } = useBatons();

const workspace = () => {
  const ws = tempDir('baton-delegate-ws-');
  onCleanup(ws.cleanup);
  return ws.dir;
};

/** The model calls one of Baton's MCP tools (Codex finds a deferred MCP tool with tool_search first). */
const batonTool = (name: string, args: Record<string, unknown>, callId: string): ModelTurn[] => [
  { kind: 'tool_search', query: name },
  { kind: 'call', namespace: 'mcp__baton', name, args, callId },
];

const runs = (app: BatonApp, threadId: string) => app.runtime.store.projections.list('runs', threadId);
const runStatus = (app: BatonApp, runId: string) => app.runtime.store.projections.get('runs', runId)?.status;
const thread = (app: BatonApp, threadId: string) => app.runtime.store.projections.get('threads', threadId)!;

describe('delegation through the orchestrator MCP server', () => {
  it('a Codex thread delegates to a Claude child through MCP; thread_wait hands it the result; the child is on its graph', async () => {
    const requests: RecordedRequest[] = [];
    let taskId = '';
    const script = (request: RecordedRequest, i: number): ModelTurn => {
      requests.push(request);
      const steps: ModelTurn[] = [
        ...batonTool(
          'delegate_task',
          { task: 'Say hello from Claude.', provider: 'claude', clientRequestId: 'task-1' },
          'call_delegate',
        ),
        { kind: 'call', namespace: 'mcp__baton', name: 'thread_wait', args: {}, callId: 'call_wait' },
        { kind: 'text', text: 'My helper answered.' },
      ];
      if (i === 2) {
        taskId = /"taskId":"([^"]+)"/.exec(lastToolOutput(request))?.[1] ?? 'no-task-id';
        return {
          kind: 'call',
          namespace: 'mcp__baton',
          name: 'thread_wait',
          args: { threadId: taskId, timeoutMs: 60_000 },
          callId: 'call_wait',
        };
      }
      return steps[i] ?? { kind: 'text', text: 'more' };
    };
    const app = await baton(script);
    approveAll(app, onCleanup);
    const client = await mcpClient(app, onCleanup);
    const started = await ok(client, 'thread_start', { cwd: workspace(), text: 'get a helper to say hello' });
    const parentId: string = started.threadId;
    await untilCommitted(
      app,
      () => runStatus(app, started.runId) === 'completed',
      'the parent run to complete',
      90_000,
    );

    // The child: a subagent of the parent on Claude, in its workspace, started with the task.
    const child = thread(app, taskId);
    expect(child).toMatchObject({
      provider: 'claude',
      lineage: { parentThreadId: parentId, relationshipToParent: 'subagent', rootThreadId: parentId },
      workspace: { cwd: thread(app, parentId).workspace.cwd },
      runtimeMode: thread(app, parentId).runtimeMode,
    });
    const [task] = runs(app, taskId);
    expect(task).toMatchObject({ status: 'completed', provider: 'claude' });
    // thread_wait handed the model the child's answer.
    expect(lastToolOutput(requests[3]!)).toContain('(offline scripted model) I received: Say hello from Claude.');

    // The parent's graph: a subagent node under the delegating run's root turn, ended as the task did.
    const nodes = app.runtime.store.projections.list('graph_nodes', parentId);
    const root = nodes.find((n) => n.kind === 'root_turn' && n.runId === started.runId)!;
    const node = nodes.find((n) => n.kind === 'subagent');
    expect(node).toMatchObject({
      runId: started.runId,
      parentNodeId: root.id,
      status: 'completed',
      detail: { tool: 'delegate_task', taskId, runId: task!.id, provider: 'claude' },
    });
    // Context transfers: the spawn is the child's (from the parent's run), the result the parent's (from the task's run).
    expect(app.runtime.store.projections.list('context_transfers', taskId)).toMatchObject([
      {
        kind: 'subagent_spawn',
        status: 'resolved_native',
        sourcePoint: { threadId: parentId, runId: started.runId },
        toProvider: 'claude',
      },
    ]);
    expect(app.runtime.store.projections.list('context_transfers', parentId)).toMatchObject([
      {
        kind: 'subagent_result',
        status: 'resolved_native',
        sourcePoint: { threadId: taskId, runId: task!.id },
        fromProvider: 'claude',
        toProvider: 'codex',
      },
    ]);
    // task_status with Baton's own token says the same.
    expect(await ok(client, 'task_status', { taskId })).toMatchObject({
      taskId,
      parentThreadId: parentId,
      status: 'completed',
      done: true,
      result: '(offline scripted model) I received: Say hello from Claude.',
    });
  }, 120_000);

  it('an agent’s credential is its session’s: scoped to its thread’s tasks, and refused once the session stops', async () => {
    const app = await baton(() => ({ kind: 'text', text: 'Done.' }));
    const client = await mcpClient(app, onCleanup);
    const ws = workspace();
    const started = await ok(client, 'thread_start', { cwd: ws, text: 'hello' });
    await untilCommitted(app, () => runStatus(app, started.runId) === 'completed', 'the run to complete');
    // The token Codex was given, as its process holds it.
    const [pid] = processesIn(['codex'], ws);
    const token = processEnv(pid!, 'BATON_MCP_TOKEN')!;
    expect(token).toMatch(/^bms_/);
    expect(token).not.toBe(app.token);

    const agent = await mcpClient(app, onCleanup, token);
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['delegate_task', 'orchestrator_capabilities', 'task_cancel', 'task_status', 'thread_read', 'thread_wait'].sort(),
    );
    expect((await ok(agent, 'orchestrator_capabilities', {})).tools).toEqual(tools.map((t) => t.name));
    // Its own thread's tasks only: another thread is not there for it, nor are the owner's tools.
    const other = await ok(client, 'create_threads', { threads: [{ cwd: ws }] });
    expect(await call(agent, 'thread_read', { threadId: other.threads[0].threadId })).toMatchObject({
      isError: true,
      value: { code: 'not_found' },
    });
    expect(await call(agent, 'thread_list', {})).toMatchObject({ isError: true, value: { code: 'not_found' } });
    expect(await call(agent, 'delegate_task', { task: 'x', parentThreadId: other.threads[0].threadId })).toMatchObject({
      isError: true,
      value: { code: 'invalid_command' },
    });

    // The session stops (released as idle): its credential goes with it.
    const stopped = untilCommitted(
      app,
      () => app.runtime.store.projections.list('sessions', started.threadId).every((s) => s.status === 'stopped'),
      'the session to stop',
    );
    expect(app.codex.reapIdle()).toBe(1);
    await stopped;
    const refused = await listToolsWith(app, { authorization: `Bearer ${token}` });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
  }, 60_000);

  it('Baton’s own token delegates for a thread it names; a retry with the same clientRequestId makes one child; task_cancel stops one', async () => {
    const app = await baton((request) =>
      userText(request).includes('take your time') ? { kind: 'hang' } : { kind: 'text', text: 'Answered.' },
    );
    const client = await mcpClient(app, onCleanup);
    const started = await ok(client, 'thread_start', { cwd: workspace(), text: 'hello' });
    await untilCommitted(app, () => runStatus(app, started.runId) === 'completed', 'the parent run to complete');
    const parentId: string = started.threadId;

    expect(await call(client, 'delegate_task', { task: 'no parent' })).toMatchObject({
      isError: true,
      value: { code: 'invalid_payload', message: expect.stringContaining('parentThreadId') },
    });
    const args = { parentThreadId: parentId, task: 'Answer briefly.', provider: 'claude', clientRequestId: 'd-1' };
    const first = await ok(client, 'delegate_task', args);
    expect(first).toEqual({
      taskId: expect.stringMatching(/^thr_/),
      threadId: first.taskId,
      runId: expect.stringMatching(/^run_/),
      parentThreadId: parentId,
      provider: 'claude',
    });
    expect(await ok(client, 'delegate_task', args)).toEqual(first);
    const children = () => app.runtime.store.projections.list('threads').filter((t) => t.id !== parentId);
    expect(children()).toHaveLength(1);
    expect(runs(app, first.taskId)).toHaveLength(1);
    const waited = await ok(client, 'thread_wait', { threadId: first.taskId, timeoutMs: 60_000 });
    expect(waited).toMatchObject({ done: true, run: { runId: first.runId, status: 'completed' } });
    expect(waited.lastAssistantMessage).toContain('Answer briefly.');
    // The parent had no run going: the task is on no graph, but its result is recorded on the parent.
    expect(app.runtime.store.projections.list('graph_nodes', parentId).some((n) => n.kind === 'subagent')).toBe(false);
    await untilCommitted(
      app,
      () => app.runtime.store.projections.list('context_transfers', parentId).length === 1,
      'the task result on the parent',
    );

    // A task still working is stopped; one that has finished is left alone.
    const hanging = await ok(client, 'delegate_task', { parentThreadId: parentId, task: 'take your time' });
    await untilCommitted(app, () => runStatus(app, hanging.runId) === 'running', 'the task to run');
    const cancel = { taskId: hanging.taskId, clientRequestId: 'c-1' };
    expect(await ok(client, 'task_cancel', cancel)).toMatchObject({
      taskId: hanging.taskId,
      cancelled: true,
      stopped: true,
    });
    await untilCommitted(app, () => runStatus(app, hanging.runId) === 'interrupted', 'the task to be interrupted');
    expect(await ok(client, 'task_cancel', cancel)).toMatchObject({
      cancelled: true,
      status: 'interrupted',
      done: true,
    });
    expect(await ok(client, 'task_cancel', { taskId: first.taskId })).toMatchObject({
      cancelled: false,
      status: 'completed',
    });
    expect(thread(app, first.taskId).queueHeld).toBe(false);
    expect(await ok(client, 'task_status', { taskId: hanging.taskId })).toMatchObject({
      status: 'interrupted',
      done: true,
    });
  }, 90_000);

  it('the Stop button (run.interrupt with holdQueue) stops the tasks too; a plain interrupt does not', async () => {
    const app = await baton(() => ({ kind: 'hang' }));
    const client = await mcpClient(app, onCleanup);
    const parent = await ok(client, 'thread_start', { cwd: workspace(), text: 'parent work' });
    await untilCommitted(app, () => runStatus(app, parent.runId) === 'running', 'the parent to run');
    const child = await ok(client, 'delegate_task', { parentThreadId: parent.threadId, task: 'child work' });
    await untilCommitted(app, () => runStatus(app, child.runId) === 'running', 'the task to run');

    // An interrupt that keeps the queue going is no Stop: the task goes on.
    await ok(client, 'thread_interrupt', { threadId: parent.threadId });
    await untilCommitted(app, () => runStatus(app, parent.runId) === 'interrupted', 'the parent to be interrupted');
    expect(
      app.runtime.store.outbox.list({ threadId: parent.threadId }).some((e) => e.kind === 'delegated-tasks.stop'),
    ).toBe(false);
    expect(runStatus(app, child.runId)).toBe('running');

    const again = await ok(client, 'thread_send', { threadId: parent.threadId, text: 'more parent work' });
    await untilCommitted(app, () => runStatus(app, again.runId) === 'running', 'the parent to run again');
    await ok(client, 'thread_interrupt', { threadId: parent.threadId, holdQueue: true });
    await untilCommitted(
      app,
      () => runStatus(app, again.runId) === 'interrupted' && runStatus(app, child.runId) === 'interrupted',
      'the parent and its task to be interrupted',
    );
    expect(thread(app, child.taskId).queueHeld).toBe(true);
  }, 90_000);
});

// The same scenarios as delegation-replay.test.ts replays, live: the steps replayed still hold against the real agents.
describe('the replayed delegation scenarios, live', () => {
  for (const scenario of delegationScenarios)
    it(
      scenario.name,
      async () => {
        const dir = tempDir('baton-delegation-live-');
        onCleanup(dir.cleanup);
        const place = { cwd: realpathSync(workspace()), dir: dir.dir, checkpointsRoot: join(dir.dir, 'checkpoints') };
        await runDelegationScenario(scenario, delegationLiveChannel(), place);
      },
      120_000,
    );
});
