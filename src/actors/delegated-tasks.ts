import type { Logger } from 'pino';
import type { ProviderCapabilities } from '../domain/capabilities.js';
import type { DomainEvent } from '../domain/events.js';
import { idOf, type NodeId, type RunId, type ThreadId } from '../domain/ids.js';
import type { ProjectionRow } from '../domain/projections.js';
import { runTerminalStatuses } from '../domain/statuses.js';
import type { Store } from '../persistence/store.js';
import {
  dropWake,
  markRead,
  owesAfter,
  recordTask,
  taskEnded,
  taskRow,
  wakeOwed,
  type WakeEnv,
} from './delegated-task-wake.js';
import type { StepContext } from './step-context.js';
import type { StepOutcome } from './step-outcome.js';

/**
 * A delegated task, as its parent sees it. The task is the first run of a thread delegated by
 * the parent (`thread.create { parentThreadId }` and its first message: delegate_task). The
 * parent's graph shows it as a `subagent` node under the root of the run that delegated it
 * (when it had one active), ended when the task's run ends; that end also records the task's
 * result on the parent, a `subagent_result` context transfer whose source point is the task's
 * run. Both are written by steps on the parent (a step holds one thread), each idempotent by
 * an id derived from the task, so a retried delegation or a result seen twice adds nothing.
 * The same steps keep the wake-up the task owes its parent (delegated-task-wake.ts).
 */

type Thread = ProjectionRow<'threads'>;
type Run = ProjectionRow<'runs'>;

/** What this needs of the runtime. */
export interface TaskRuntime {
  readonly store: Store;
  readonly logger: Logger;
  step<T extends Record<string, unknown>>(threadId: ThreadId, work: (ctx: StepContext) => T): Promise<StepOutcome<T>>;
  onEvents(listener: (events: DomainEvent[]) => void): () => void;
  threadCapabilities(threadId: string): ProviderCapabilities;
}

/** What a wake-up on `parentId` is built with: its text is bounded like a handoff to the parent's provider. */
function wakeEnv(runtime: TaskRuntime, parentId: string): WakeEnv {
  let maxChars = 40_000;
  try {
    maxChars = runtime.threadCapabilities(parentId).context.maxRecommendedHandoffChars;
  } catch {
    // A provider this Baton lacks: the common bound.
  }
  return { store: runtime.store, maxChars };
}

/** The node a task is on its parent's graph, one per delegated thread. */
export const taskNodeId = (childThreadId: string): NodeId => idOf('node', `node_task_${childThreadId}`);
const resultTransferId = (taskRunId: string) => idOf('contextTransfer', `xfer_result_${taskRunId}`);

const isTerminal = (status: string) => (runTerminalStatuses as readonly string[]).includes(status);

/** How a task's node ends: as its run did (a run rolled back or cancelled is a cancelled task). */
function endStatusOf(run: Run): 'completed' | 'failed' | 'interrupted' | 'cancelled' {
  return run.status === 'completed' || run.status === 'failed' || run.status === 'interrupted'
    ? run.status
    : 'cancelled';
}

/** A thread delegated by another: its parent's id, else null. */
export function delegatedBy(thread: Thread | null): ThreadId | null {
  return thread?.lineage.relationshipToParent === 'subagent' ? thread.lineage.parentThreadId : null;
}

/** The task's run: the delegated thread's first run. */
export function taskRun(store: Store, childThreadId: string): Run | null {
  return store.projections.list('runs', childThreadId)[0] ?? null;
}

/**
 * Records the task on its parent: its row (the wake-up it will owe, unless `wake` is false)
 * and, when the parent has a run active, a `subagent` node under that run's root turn,
 * running, its detail naming the task. A parent with no run active (its owner delegated from
 * outside any run) has no graph to put it on: null. A task that ended before this step (its
 * end recorded with nothing here to end) is settled now.
 */
export async function attachTask(
  runtime: TaskRuntime,
  child: { threadId: ThreadId; runId: string; provider: string; title: string; wake: boolean },
): Promise<NodeId | null> {
  const parentId = delegatedBy(runtime.store.projections.get('threads', child.threadId));
  if (!parentId) return null;
  const nodeId = taskNodeId(child.threadId);
  const env = wakeEnv(runtime, parentId);
  const outcome = await runtime.step(parentId, (t) => {
    const runId = t.context({ kind: 'thread_supervisor', id: parentId })?.activeRunId ?? null;
    const recorded = taskRow(t, child.threadId);
    const row =
      recorded ??
      recordTask(t, {
        taskId: child.threadId,
        taskRunId: child.runId as RunId,
        delegatingRunId: runId,
        wake: child.wake,
      });
    const task = runtime.store.projections.get('runs', child.runId);
    const ended = task && isTerminal(task.status) ? task : null;
    if (ended && !recorded) taskEnded(t, env, child.threadId, ended.status);
    if (t.state({ kind: 'execution_node', id: nodeId })) return { nodeId };
    // A retried delegation after its run ended finds no node to add: the task was made outside that run.
    const run = runId && row.delegatingRunId === runId ? t.context({ kind: 'run', id: runId }) : null;
    if (!runId || !run) return { nodeId: null };
    // The root of the attempt now going (a steer by restart gives a run a new root).
    const root = t.current.view
      .list('graph_nodes', parentId, (n) => n.runId === runId && n.kind === 'root_turn')
      .find((n) => n.attemptId === run.activeAttemptId);
    t.spawn('execution_node', nodeId, {
      nodeId,
      runId,
      threadId: parentId,
      attemptId: run.activeAttemptId,
      parentNodeId: root?.id ?? run.rootNodeId,
      kind: 'subagent',
      countsForRun: false,
      title: child.title,
    });
    t.deliver({ kind: 'execution_node', id: nodeId }, { type: 'START' });
    // A task that ended before it was put here (its end was recorded with no node to end) ends now.
    if (ended) t.deliver({ kind: 'execution_node', id: nodeId }, { type: 'END', status: endStatusOf(ended) });
    t.current.addEvent({
      type: 'node.detail',
      payload: {
        threadId: parentId,
        runId,
        nodeId,
        text: null,
        detail: {
          tool: 'delegate_task',
          taskId: child.threadId,
          threadId: child.threadId,
          runId: child.runId,
          provider: child.provider,
          wake: child.wake,
        },
      },
    });
    return { nodeId };
  });
  // The task runs all the same: only its place on the parent's graph (and its wake-up) is missing.
  if (outcome.ok) return outcome.result.nodeId;
  runtime.logger.warn(
    { threadId: parentId, task: child.threadId, error: outcome.error },
    'a task was not put on its parent graph',
  );
  return null;
}

/**
 * The task has ended: its node on the parent's graph ends as its run did, and the parent
 * records its result (`subagent_result`, resolved at once: the parent reads it with
 * task_status or thread_wait, no handoff text is owed).
 */
export async function recordTaskEnd(runtime: TaskRuntime, child: Thread, run: Run): Promise<void> {
  const parentId = delegatedBy(child);
  if (!parentId || !runtime.store.projections.get('threads', parentId)) return;
  const transferId = resultTransferId(run.id);
  const nodeId = taskNodeId(child.id);
  const env = wakeEnv(runtime, parentId);
  const outcome = await runtime.step(parentId, (t) => {
    // Decided in the commit that records the end: the wake-up it owes, once (see delegated-task-wake.ts).
    taskEnded(t, env, child.id, run.status);
    if (t.state({ kind: 'context_transfer', id: transferId })) return {};
    if (t.state({ kind: 'execution_node', id: nodeId }))
      t.deliver({ kind: 'execution_node', id: nodeId }, { type: 'END', status: endStatusOf(run) });
    const parent = t.context({ kind: 'thread_supervisor', id: parentId });
    t.spawn('context_transfer', transferId, {
      transferId,
      threadId: parentId,
      kind: 'subagent_result',
      sourceThreadId: child.id,
      sourceRunId: run.id,
      sourceRunOrdinal: run.ordinal,
      fromProvider: run.provider,
      toProvider: parent?.provider ?? null,
    });
    t.deliver({ kind: 'context_transfer', id: transferId }, { type: 'RESOLVED_NATIVE' });
    return {};
  });
  if (!outcome.ok)
    runtime.logger.warn({ threadId: parentId, task: child.id, error: outcome.error }, 'a task end was not recorded');
}

/**
 * The parent's agent was handed the task's end (a tool's answer to it): the task owes no
 * wake-up (`read`), or, for task_cancel, none any more (`dropped`). Awaited before the answer
 * goes, so the parent's run cannot end before it is recorded. A step only when it changes something.
 */
export async function settleTaskWake(
  runtime: TaskRuntime,
  task: Thread,
  how: { read: string } | { dropped: string },
): Promise<void> {
  const parentId = delegatedBy(task);
  const row = runtime.store.projections.get('delegated_tasks', task.id);
  if (!parentId || !row || !['awaiting_end', 'owed', 'queued'].includes(row.wake)) return;
  const outcome = await runtime.step(parentId, (t) => {
    if ('read' in how) markRead(t, task.id, how.read);
    else dropWake(t, task.id, how.dropped);
    return {};
  });
  if (!outcome.ok)
    runtime.logger.warn({ threadId: parentId, task: task.id, error: outcome.error }, 'a wake-up was not settled');
}

/** Queues on `threadId` the wake-ups owed after its run that ended (see `wakeOwed`). */
async function wakeAfterRun(runtime: TaskRuntime, threadId: ThreadId): Promise<void> {
  const env = wakeEnv(runtime, threadId);
  const outcome = await runtime.step(threadId, (t) => ({ woken: wakeOwed(t, env) }));
  if (!outcome.ok) runtime.logger.warn({ threadId, error: outcome.error }, 'a wake-up owed was not queued');
}

/**
 * Records each task's end on its parent as it commits (the runtime's publications), and at
 * start the ends committed while no Baton was watching (a restart between the two commits).
 * A run of a parent that ends lets the wake-ups owed after it go, as do, at start, those
 * whose run ended while no Baton was watching (a restart interrupts the runs it finds going).
 * Returns the unsubscribe.
 */
export function watchDelegatedTasks(runtime: TaskRuntime): () => void {
  const store = runtime.store;
  const ended = (threadId: string) => {
    const child = store.projections.get('threads', threadId);
    const run = taskRun(store, threadId);
    if (!child || !run || !delegatedBy(child) || !isTerminal(run.status)) return;
    const recorded = store.projections.get('context_transfers', resultTransferId(run.id));
    if (recorded && store.projections.get('delegated_tasks', threadId)?.endStatus !== null) return;
    void recordTaskEnd(runtime, child, run);
  };
  const stop = runtime.onEvents((events: DomainEvent[]) => {
    for (const e of events) {
      if (e.type !== 'run.status-changed' || !isTerminal(e.payload.to)) continue;
      ended(e.threadId);
      if (owesAfter(store, e.threadId, e.payload.runId)) void wakeAfterRun(runtime, e.threadId);
    }
  });
  // What was missed while Baton was down, read from the tasks' own rows (a few), not from
  // every thread: a scan of all threads cost a start with 10,000 threads about 230 ms.
  // Wake-ups owed already go first; the ends recorded now are owed after them.
  const tasks = store.projections.list('delegated_tasks');
  for (const parentId of new Set(tasks.map((task) => task.threadId)))
    if (owesAfter(store, parentId, null)) void wakeAfterRun(runtime, parentId);
  for (const task of tasks) if (task.endStatus === null) ended(task.id);
  return stop;
}
