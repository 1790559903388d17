import type { Runtime } from '../../src/actors/runtime.js';
import type { ModelTurn, RecordedRequest } from '../../src/providers/model/scripted-model-server.js';
import { frameDifferences } from '../../src/providers/transport/replay-matching.js';
import { until } from '../support/poll.js';
import { processesIn } from '../support/processes.js';
import { check } from '../support/scenario-kit/scenario.js';
import { quiet, type DelegationScenario } from './delegation-channels.js';
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

/**
 * The delegation scenarios of issue 16, recorded live (`npm run record:delegation`) and
 * replayed (delegation-replay.test.ts): the same steps and the same checks both ways, as the
 * live tests in delegation.test.ts have them. Checks read Baton's store and MCP answers; what
 * the model was asked is checked live only, and its replayed counterpart is what Baton kept of
 * the agent's tool call (the item's node), which the replayed frames carry.
 */

/**
 * `actual` has every field `expected` names, with the same value (objects deeply, arrays
 * element by element and of the same length): the first field that does not is named.
 */
export function checkMatches(actual: unknown, expected: unknown, what: string, path = ''): void {
  if (expected && typeof expected === 'object' && actual && typeof actual === 'object') {
    if (Array.isArray(expected))
      check(
        Array.isArray(actual) && actual.length === expected.length,
        `${what}: ${path || 'value'} has ${expected.length} elements, got ${JSON.stringify(actual)}`,
      );
    for (const [key, value] of Object.entries(expected))
      checkMatches((actual as Record<string, unknown>)[key], value, what, `${path}${path ? '.' : ''}${key}`);
    return;
  }
  const [difference] = frameDifferences(expected, actual, path);
  check(difference === undefined, `${what}: ${difference}`);
}

/** The model calls one of Baton's MCP tools (Codex finds a deferred MCP tool with tool_search first). */
const batonTool = (name: string, args: Record<string, unknown>, callId: string): ModelTurn[] => [
  { kind: 'tool_search', query: name },
  { kind: 'call', namespace: 'mcp__baton', name, args, callId },
];

const runs = (runtime: Runtime, threadId: string) => runtime.store.projections.list('runs', threadId);
const runStatus = (runtime: Runtime, runId: string) => runtime.store.projections.get('runs', runId)?.status;
const threadOf = (runtime: Runtime, threadId: string) => runtime.store.projections.get('threads', threadId)!;

/**
 * What Baton kept of the parent agent's call of one of its MCP tools: the call's node detail
 * (the arguments, and the result or error the agent got). Live it is what the agent reported;
 * replayed, what its recorded frames say.
 */
function toolCall(runtime: Runtime, threadId: string, tool: string): string {
  const node = runtime.store.projections
    .list('graph_nodes', threadId)
    .find((n) => JSON.stringify(n.detail ?? {}).includes(`"name":"${tool}"`));
  check(node, `the parent's graph has the ${tool} call`);
  return JSON.stringify(node.detail);
}

/** The text the model saw answered to its latest tool call: request `at`, live only. */
const toolOutputAt = (requests: RecordedRequest[] | null, at: number): string | null =>
  requests ? lastToolOutput(requests[at]!) : null;

const delegate: DelegationScenario = {
  name: 'delegate',
  codex: () => (request, i) => {
    if (i === 2) {
      const taskId = /"taskId":"([^"]+)"/.exec(lastToolOutput(request))?.[1] ?? 'no-task-id';
      return batonTool('thread_wait', { threadId: taskId, timeoutMs: 60_000 }, 'call_wait')[1]!;
    }
    const steps: ModelTurn[] = [
      ...batonTool(
        'delegate_task',
        { task: 'Say hello from Claude.', provider: 'claude', clientRequestId: 'task-1' },
        'call_delegate',
      ),
      { kind: 'text', text: 'unused: the wait' },
      { kind: 'text', text: 'My helper answered.' },
    ];
    return steps[i] ?? { kind: 'text', text: 'more' };
  },
  async drive({ baton, cwd, codexRequests, onCleanup }) {
    const { runtime } = baton;
    approveAll(baton, onCleanup);
    const client = await mcpClient(baton, onCleanup);
    const started = await ok(client, 'thread_start', { cwd, text: 'get a helper to say hello' });
    const parentId: string = started.threadId;
    await untilCommitted(baton, () => runStatus(runtime, started.runId) === 'completed', 'the parent run', 90_000);

    // The child: a subagent of the parent on Claude, in its workspace, started with the task.
    const children = runtime.store.projections.list('threads').filter((t) => t.id !== parentId);
    check(children.length === 1, `one child, got ${children.length}`);
    const taskId = children[0]!.id;
    const parent = threadOf(runtime, parentId);
    checkMatches(
      threadOf(runtime, taskId),
      {
        provider: 'claude',
        lineage: { parentThreadId: parentId, relationshipToParent: 'subagent', rootThreadId: parentId },
        workspace: { cwd: parent.workspace.cwd },
        runtimeMode: parent.runtimeMode,
      },
      'the child',
    );
    const [task] = runs(runtime, taskId);
    checkMatches(task, { status: 'completed', provider: 'claude' }, 'the task run');
    // thread_wait handed the parent the child's answer.
    const answer = '(offline scripted model) I received: Say hello from Claude.';
    const seen = toolOutputAt(codexRequests, 3);
    check(seen === null || seen.includes(answer), `the model was handed the answer, got ${seen}`);
    check(toolCall(runtime, parentId, 'thread_wait').includes(answer), 'the parent kept the answer thread_wait gave');

    // The parent's graph: a subagent node under the delegating run's root turn, ended as the task did.
    const nodes = runtime.store.projections.list('graph_nodes', parentId);
    const root = nodes.find((n) => n.kind === 'root_turn' && n.runId === started.runId);
    checkMatches(
      nodes.find((n) => n.kind === 'subagent'),
      {
        runId: started.runId,
        parentNodeId: root?.id,
        status: 'completed',
        detail: { tool: 'delegate_task', taskId, runId: task!.id, provider: 'claude' },
      },
      "the parent's subagent node",
    );
    // The spawn is the child's (from the parent's run), the result the parent's (from the task's run).
    checkMatches(
      runtime.store.projections.list('context_transfers', taskId),
      [
        {
          kind: 'subagent_spawn',
          status: 'resolved_native',
          sourcePoint: { threadId: parentId, runId: started.runId },
          toProvider: 'claude',
        },
      ],
      "the child's transfers",
    );
    checkMatches(
      runtime.store.projections.list('context_transfers', parentId),
      [
        {
          kind: 'subagent_result',
          status: 'resolved_native',
          sourcePoint: { threadId: taskId, runId: task!.id },
          fromProvider: 'claude',
          toProvider: 'codex',
        },
      ],
      "the parent's transfers",
    );
    checkMatches(
      await ok(client, 'task_status', { taskId }),
      { taskId, parentThreadId: parentId, status: 'completed', done: true, result: answer },
      'task_status',
    );
  },
};

const escalation: DelegationScenario = {
  name: 'escalation_refused',
  codex: () => {
    const script: ModelTurn[] = [
      ...batonTool('delegate_task', { task: 'Delete everything.', runtimeMode: 'full_access' }, 'call_escalate'),
      { kind: 'text', text: 'Refused, as it should be.' },
    ];
    return (_request, i) => script[i] ?? { kind: 'text', text: 'more' };
  },
  async drive({ baton, cwd, codexRequests, onCleanup }) {
    const { runtime } = baton;
    approveAll(baton, onCleanup);
    const client = await mcpClient(baton, onCleanup);
    const started = await ok(client, 'thread_start', { cwd, runtimeMode: 'read_only', text: 'delegate' });
    await untilCommitted(baton, () => runStatus(runtime, started.runId) === 'completed', 'the parent run');
    // The refusal, typed, as the model got it (live) and as the agent reported it (both ways).
    for (const refusal of [toolOutputAt(codexRequests, 2), toolCall(runtime, started.threadId, 'delegate_task')])
      check(
        refusal === null ||
          (refusal.includes('invalid_command') &&
            refusal.includes('runtimeMode full_access is broader than read_only')),
        `the escalation was refused, got ${refusal}`,
      );
    check(runtime.store.projections.list('threads').length === 1, 'no child was created');

    // Baton's own token may not either: a plan-mode parent cannot have a default-mode child.
    const plan = await ok(client, 'create_threads', { threads: [{ cwd, interactionMode: 'plan' }] });
    const planId: string = plan.threads[0].threadId;
    const before = runtime.store.lastSequence();
    checkMatches(
      await call(client, 'delegate_task', { parentThreadId: planId, task: 'act', interactionMode: 'default' }),
      {
        isError: true,
        value: {
          code: 'invalid_command',
          details: { escalation: { asked: { interactionMode: 'default' }, allowed: { interactionMode: 'plan' } } },
        },
      },
      "the owner's escalation",
    );
    check(runtime.store.lastSequence() === before, 'the refused escalation committed nothing');
  },
};

const revoked: DelegationScenario = {
  name: 'revoked_credential',
  codex: () => () => ({ kind: 'text', text: 'Done.' }),
  async drive({ baton, cwd, live, onCleanup }) {
    const { runtime } = baton;
    const client = await mcpClient(baton, onCleanup);
    const started = await ok(client, 'thread_start', { cwd, text: 'hello' });
    await untilCommitted(baton, () => runStatus(runtime, started.runId) === 'completed', 'the run');
    // The token Codex was given (live, as its process holds it).
    const { token } = baton.credentials.of(started.threadId);
    check(/^bms_/.test(token) && token !== baton.token, `a session credential, got ${token}`);
    if (live) {
      const [pid] = processesIn(['codex'], cwd);
      check(processEnv(pid!, 'BATON_MCP_TOKEN') === token, 'Codex holds the credential Baton minted for its session');
    }
    const agent = await mcpClient(baton, onCleanup, token);
    const names = (await agent.listTools()).tools.map((t) => t.name);
    checkMatches(
      [...names].sort(),
      ['delegate_task', 'orchestrator_capabilities', 'task_cancel', 'task_status', 'thread_read', 'thread_wait'],
      'the session’s tools',
    );
    checkMatches((await ok(agent, 'orchestrator_capabilities', {})).tools, names, 'orchestrator_capabilities');
    // Its own thread's tasks only: another thread is not there for it, nor are the owner's tools.
    const other: string = (await ok(client, 'create_threads', { threads: [{ cwd }] })).threads[0].threadId;
    const refused = { isError: true, value: { code: 'not_found' } };
    checkMatches(await call(agent, 'thread_read', { threadId: other }), refused, 'thread_read of another thread');
    checkMatches(await call(agent, 'thread_list', {}), refused, 'thread_list');
    checkMatches(
      await call(agent, 'delegate_task', { task: 'x', parentThreadId: other }),
      { isError: true, value: { code: 'invalid_command' } },
      'delegate_task for another thread',
    );

    // The session stops (released as idle): its credential goes with it.
    const stopped = untilCommitted(
      baton,
      () => runtime.store.projections.list('sessions', started.threadId).every((s) => s.status === 'stopped'),
      'the session to stop',
    );
    check(baton.codex.reapIdle() === 1, 'the idle session was released');
    await stopped;
    const answer = await listToolsWith(baton, { authorization: `Bearer ${token}` });
    check(answer.status === 401, `the revoked credential is refused, got ${answer.status}`);
    checkMatches(await answer.json(), { ok: false, error: { code: 'unauthorized' } }, 'the refusal');
  },
};

const retry: DelegationScenario = {
  name: 'delegate_retry',
  codex: () => (request) =>
    userText(request).includes('take your time') ? { kind: 'hang' } : { kind: 'text', text: 'Answered.' },
  async drive({ baton, cwd, onCleanup }) {
    const { runtime } = baton;
    const client = await mcpClient(baton, onCleanup);
    const started = await ok(client, 'thread_start', { cwd, text: 'hello' });
    await untilCommitted(baton, () => runStatus(runtime, started.runId) === 'completed', 'the parent run');
    const parentId: string = started.threadId;
    const args = { parentThreadId: parentId, task: 'Answer briefly.', provider: 'claude', clientRequestId: 'd-1' };
    const first = await ok(client, 'delegate_task', args);
    checkMatches(await ok(client, 'delegate_task', args), first, 'the retry’s answer');
    const children = runtime.store.projections.list('threads').filter((t) => t.id !== parentId);
    checkMatches(
      children.map((t) => t.id),
      [first.taskId],
      'one child',
    );
    check(runs(runtime, first.taskId).length === 1, 'one task run');
    const waited = await ok(client, 'thread_wait', { threadId: first.taskId, timeoutMs: 60_000 });
    checkMatches(waited, { done: true, run: { runId: first.runId, status: 'completed' } }, 'thread_wait');
    check(String(waited.lastAssistantMessage).includes('Answer briefly.'), 'the task answered');
    // The parent had no run going: the task is on no graph, but its result is recorded on the parent.
    check(
      !runtime.store.projections.list('graph_nodes', parentId).some((n) => n.kind === 'subagent'),
      'the task is on no graph',
    );
    await untilCommitted(
      baton,
      () => runtime.store.projections.list('context_transfers', parentId).length === 1,
      'the task result on the parent',
    );

    // Its end woke the parent (it had not read it): the wake-up run ends before the next task, delegated while idle.
    await untilCommitted(baton, () => quiet(runtime), 'the parent to be idle again');

    // A task still working is stopped (a retry of the cancel answers the same); one that has finished is left alone.
    const hanging = await ok(client, 'delegate_task', { parentThreadId: parentId, task: 'take your time' });
    await untilCommitted(baton, () => runStatus(runtime, hanging.runId) === 'running', 'the task to run');
    const cancel = { taskId: hanging.taskId, clientRequestId: 'c-1' };
    checkMatches(await ok(client, 'task_cancel', cancel), { cancelled: true, stopped: true }, 'task_cancel');
    await untilCommitted(baton, () => runStatus(runtime, hanging.runId) === 'interrupted', 'the interrupt');
    checkMatches(
      await ok(client, 'task_cancel', cancel),
      { cancelled: true, status: 'interrupted', done: true },
      'the retried cancel',
    );
    checkMatches(
      await ok(client, 'task_cancel', { taskId: first.taskId }),
      { cancelled: false, status: 'completed' },
      'the cancel of a finished task',
    );
  },
};

const cascade: DelegationScenario = {
  name: 'stop_cascade',
  codex: () => (request) =>
    userText(request).includes('finish quickly') ? { kind: 'text', text: 'Finished.' } : { kind: 'hang' },
  async drive({ baton, cwd, onCleanup }) {
    const { runtime } = baton;
    const client = await mcpClient(baton, onCleanup);
    const held: string[] = [];
    onCleanup(
      runtime.onEvents((events) => {
        for (const e of events)
          if (e.type === 'thread.queue-held' && (e.payload as { held: boolean }).held) held.push(e.threadId);
      }),
    );
    const parent = await ok(client, 'thread_start', { cwd, text: 'parent work' });
    await untilCommitted(baton, () => runStatus(runtime, parent.runId) === 'running', 'the parent to run');
    const child = await ok(client, 'delegate_task', { parentThreadId: parent.threadId, task: 'child work' });
    const grandchild = await ok(client, 'delegate_task', { parentThreadId: child.taskId, task: 'grandchild work' });
    const finished = await ok(client, 'delegate_task', { parentThreadId: parent.threadId, task: 'finish quickly' });
    await untilCommitted(
      baton,
      () =>
        runStatus(runtime, finished.runId) === 'completed' &&
        runStatus(runtime, child.runId) === 'running' &&
        runStatus(runtime, grandchild.runId) === 'running',
      'the tasks to run (and one to finish)',
    );
    // Delegated during the parent's run: the child is a node of the parent's graph, the grandchild of the child's.
    const taskNode = (threadId: string) =>
      runtime.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'subagent');
    checkMatches(
      taskNode(parent.threadId),
      { runId: parent.runId, status: 'running', detail: { taskId: child.taskId } },
      "the parent's task node",
    );
    checkMatches(
      taskNode(child.taskId),
      { runId: child.runId, detail: { taskId: grandchild.taskId } },
      "the child's task node",
    );
    checkMatches(
      threadOf(runtime, grandchild.taskId).lineage,
      { parentThreadId: child.taskId, relationshipToParent: 'subagent', rootThreadId: parent.threadId },
      "the grandchild's lineage",
    );

    const ack = await runtime.dispatch({
      type: 'thread.stop',
      commandId: 'cmd_stop_parent',
      threadId: parent.threadId,
    });
    checkMatches(ack, { ok: true }, 'the stop');
    await untilCommitted(
      baton,
      () => [parent, child, grandchild].every((t) => runStatus(runtime, t.runId) === 'interrupted'),
      'every run under the parent to be interrupted',
    );
    // The parent first (its own command), then its tree children first; the finished task is left alone.
    checkMatches(held, [parent.threadId, grandchild.taskId, child.taskId], 'the threads held, in order');
    check(!threadOf(runtime, finished.taskId).queueHeld, 'the finished task is not held');
    check(runStatus(runtime, finished.runId) === 'completed', 'the finished task stays completed');
    // The parent's cascade, and the child's own (it has a task too), which finds nothing left to stop.
    // Settling an effect commits no event: its row is looked at until both are done.
    const stops = (threadId: string) =>
      runtime.store.outbox.list({ threadId }).filter((e) => e.kind === 'delegated-tasks.stop');
    await until(
      () => [parent.threadId, child.taskId].every((t) => stops(t).length === 1 && stops(t)[0]!.status === 'completed'),
      'both cascades to be carried out',
      10_000,
    );
    check(stops(grandchild.taskId).length + stops(finished.taskId).length === 0, 'no cascade from the leaves');
    checkMatches(
      await ok(client, 'task_status', { taskId: child.taskId }),
      { status: 'interrupted', stopped: true },
      "the child's task_status",
    );
  },
};

/** Every delegation scenario, recorded and replayed. */
export const delegationScenarios: readonly DelegationScenario[] = [delegate, cascade, escalation, revoked, retry];
