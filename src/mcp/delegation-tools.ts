import { z } from 'zod';
import { backgroundWork } from '../actors/background-work.js';
import { stillWorking } from '../actors/delegated-tasks-stop.js';
import { attachTask, settleTaskWake, taskRun } from '../actors/delegated-tasks.js';
import { narrowest, requireNoBroader } from '../actors/delegated-threads.js';
import type { Runtime } from '../actors/runtime.js';
import { BatonError } from '../domain/errors.js';
import { ThreadId } from '../domain/ids.js';
import type { ProjectionRow } from '../domain/projections.js';
import { InteractionMode, ProviderKind, RuntimeMode } from '../domain/statuses.js';
import type { McpScope } from './credentials.js';
import { ClientRequestId, ToolCommands } from './tool-commands.js';
import { defineTool, type McpTool } from './tool-registry.js';
import { isTerminal, lastAssistantMessage, pendingRequests, requireVisibleThread, runSummary } from './thread-views.js';

type Thread = ProjectionRow<'threads'>;

const TaskId = ThreadId.describe('The task: the id of the thread delegate_task made for it');

/** The thread a call delegates for: a session's own, or the one Baton's own token names. */
function delegatingThread(runtime: Runtime, scope: McpScope, named: string | undefined): Thread {
  if (scope.kind === 'session') {
    if (named !== undefined && named !== scope.threadId)
      throw new BatonError('invalid_command', `this credential delegates for thread ${scope.threadId} only`, {
        parentThreadId: named,
      });
    return requireVisibleThread(runtime.store, { kind: 'full', principal: scope.principal }, scope.threadId);
  }
  if (named === undefined)
    throw new BatonError(
      'invalid_payload',
      'delegate_task with Baton’s own token names the delegating thread: parentThreadId',
    );
  return requireVisibleThread(runtime.store, scope, named);
}

/** A task the caller may see: a delegated thread (its own, for a session). */
function requireTask(runtime: Runtime, scope: McpScope, taskId: string): Thread {
  const thread = requireVisibleThread(runtime.store, scope, taskId);
  if (thread.lineage.relationshipToParent !== 'subagent') throw new BatonError('not_found', `no task ${taskId}`);
  return thread;
}

/** Where a task stands: its run (the delegated thread's first), its answer once it has ended, and its wake-up. */
function taskView(runtime: Runtime, task: Thread) {
  const run = taskRun(runtime.store, task.id);
  const done = run !== null && isTerminal(run.status);
  const wake = runtime.store.projections.get('delegated_tasks', task.id);
  const background = backgroundWork(runtime.store, task.id);
  return {
    taskId: task.id,
    threadId: task.id,
    parentThreadId: task.lineage.parentThreadId,
    provider: task.provider,
    status: run?.status ?? 'queued',
    done,
    run: run ? runSummary(run) : null,
    result: done && run ? lastAssistantMessage(runtime.store, run) : null,
    pendingRequests: pendingRequests(runtime.store, task.id),
    stopped: task.queueHeld,
    wake: wake ? { status: wake.wake, runId: wake.wakeRunId, reason: wake.reason } : null,
    // The task ends with its run; its agent may work on in the background (a Claude helper), said only then.
    ...(background ? { backgroundWork: background } : {}),
  };
}

/**
 * The end of a task reached its parent's agent (a session of the parent thread was answered
 * with it): its wake-up is not owed any more. A read with Baton's own token is not the agent's.
 */
async function handedToParent(runtime: Runtime, scope: McpScope, task: Thread, how: string): Promise<void> {
  if (scope.kind !== 'session' || scope.threadId !== task.lineage.parentThreadId) return;
  await settleTaskWake(runtime, task, { read: how });
}

/** Reads a task's view; an ended one read by its parent's agent owes no wake-up. */
async function readTask(runtime: Runtime, scope: McpScope, task: Thread, how: string) {
  const view = taskView(runtime, task);
  if (view.done) await handedToParent(runtime, scope, task, how);
  return view;
}

/** delegate_task, task_status and task_cancel: work handed to another agent as a thread of its own. */
export function delegationTools(runtime: Runtime): McpTool[] {
  return [
    defineTool({
      name: 'delegate_task',
      title: 'Delegate a task',
      description:
        'Hands a task to another agent: a new thread, a subagent of the delegating thread (yours, or with Baton’s own token `parentThreadId`), on the provider named (default: the delegating thread’s), in the delegating thread’s workspace, started with the task as its first message. Its runtimeMode and interactionMode default to the delegating thread’s and may not be broader (read_only < workspace_write < full_access; plan < default). Returns `{ taskId, threadId, runId }`; follow with task_status or thread_wait for its result, task_cancel to stop it. When it ends and you have not read its end with thread_wait or task_status, Baton wakes you: a new run on your thread, after what it is doing, whose message gives the task’s id, status and result (`wake: false`: no wake-up, you read the end yourself). A Stop of your thread, or task_cancel, drops the wake-up.',
      readOnly: false,
      input: z
        .object({
          task: z.string().min(1).max(1_000_000).describe('What the agent is to do: its first message'),
          title: z.string().max(500).optional(),
          provider: ProviderKind.optional(),
          acpAgent: z.string().min(1).max(200).optional().describe('With provider acp: the agent to run'),
          model: z.string().min(1).optional(),
          runtimeMode: RuntimeMode.optional(),
          interactionMode: InteractionMode.optional(),
          parentThreadId: ThreadId.optional().describe(
            'The delegating thread: required with Baton’s own token, implied by an agent’s own credential',
          ),
          wake: z
            .boolean()
            .optional()
            .describe(
              'Default true: when the task ends and its end has not been read, Baton queues a run on the delegating thread telling it; false: no wake-up',
            ),
          clientRequestId: ClientRequestId.optional(),
        })
        .strict(),
      async run({ task, title, clientRequestId, parentThreadId, wake = true, ...asked }, call) {
        const parent = delegatingThread(runtime, call.scope, parentThreadId);
        // A session hands out no more than it started with, nor than its thread has now (the command checks that).
        const ceiling = call.scope.kind === 'session' ? narrowest(call.scope, parent) : parent;
        if (call.scope.kind === 'session') requireNoBroader(asked, ceiling, 'this session');
        const provider = asked.provider ?? parent.provider;
        const same = provider === parent.provider;
        const commands = new ToolCommands(runtime, call.scope, 'delegate_task', clientRequestId);
        const { threadId } = await commands.send<{ threadId: ThreadId }>('create', 'thread.create', {
          cwd: parent.workspace.cwd,
          title: title ?? `Task: ${task.length > 60 ? `${task.slice(0, 57)}...` : task}`,
          provider,
          acpAgent: asked.acpAgent ?? (same && provider === 'acp' ? (parent.acpAgent ?? undefined) : undefined),
          model: asked.model ?? (same ? (parent.model ?? undefined) : undefined),
          runtimeMode: asked.runtimeMode ?? ceiling.runtimeMode,
          interactionMode: asked.interactionMode ?? ceiling.interactionMode,
          parentThreadId: parent.id,
        });
        const sent = await commands.send<{ runId: string }>('send', 'thread.message.send', { threadId, text: task });
        const child = runtime.store.projections.get('threads', threadId)!;
        await attachTask(runtime, { threadId, runId: sent.runId, provider, title: child.title, wake });
        return { taskId: threadId, threadId, runId: sent.runId, parentThreadId: parent.id, provider };
      },
    }),
    defineTool({
      name: 'task_status',
      title: 'A task’s status',
      description:
        'Where a delegated task stands: `{ taskId, status, done, run, result, pendingRequests, stopped, wake }`; `result` is its agent’s last message once it has ended (read by the delegating thread’s agent, no wake-up is owed for it any more); `wake` is `{ status, runId, reason }`: `awaiting_end`, `owed`, `queued` (the wake-up run `runId`), `read`, `declined` or `dropped`. thread_wait with the task’s threadId waits for it.',
      readOnly: true,
      input: z.object({ taskId: TaskId }).strict(),
      async run({ taskId }, call) {
        return readTask(runtime, call.scope, requireTask(runtime, call.scope, taskId), 'task_status');
      },
    }),
    defineTool({
      name: 'task_cancel',
      title: 'Cancel a task',
      description:
        'Stops a delegated task: its run is interrupted and its thread holds its queue (`thread.stop`), and the tasks it delegated in turn are stopped too; it owes no wake-up. A task that has finished is left alone (`cancelled: false`).',
      readOnly: false,
      input: z.object({ taskId: TaskId, clientRequestId: ClientRequestId.optional() }).strict(),
      async run({ taskId, clientRequestId }, call) {
        const task = requireTask(runtime, call.scope, taskId);
        const commands = new ToolCommands(runtime, call.scope, 'task_cancel', clientRequestId);
        // A retry is answered as the first call was, though the task has ended since.
        const retried = runtime.store.receipts.get(commands.commandId('stop')) !== null;
        // No wake-up for a task its delegator cancels: dropped before the stop, so its end finds it so.
        if (!taskView(runtime, task).done) await settleTaskWake(runtime, task, { dropped: 'cancelled by task_cancel' });
        if (!stillWorking(runtime.store, task) && !retried)
          return { ...(await readTask(runtime, call.scope, task, 'task_cancel')), cancelled: false };
        await commands.send('stop', 'thread.stop', { threadId: taskId });
        return { ...taskView(runtime, requireTask(runtime, call.scope, taskId)), cancelled: true };
      },
    }),
  ];
}
