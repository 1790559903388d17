import type { Logger } from 'pino';
import type { DomainEvent } from '../domain/events.js';
import { idOf, type NodeId, type ThreadId } from '../domain/ids.js';
import type { ProjectionRow } from '../domain/projections.js';
import { runTerminalStatuses } from '../domain/statuses.js';
import type { Store } from '../persistence/store.js';
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
 */

type Thread = ProjectionRow<'threads'>;
type Run = ProjectionRow<'runs'>;

/** What this needs of the runtime. */
export interface TaskRuntime {
  readonly store: Store;
  readonly logger: Logger;
  step<T extends Record<string, unknown>>(threadId: ThreadId, work: (ctx: StepContext) => T): Promise<StepOutcome<T>>;
  onEvents(listener: (events: DomainEvent[]) => void): () => void;
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
 * Puts the task on its parent's graph: a `subagent` node under the root turn of the parent's
 * active run, running, its detail naming the task. A parent with no run active (its owner
 * delegated from outside any run) has no graph to put it on: null.
 */
export async function attachTask(
  runtime: TaskRuntime,
  child: { threadId: ThreadId; runId: string; provider: string; title: string },
): Promise<NodeId | null> {
  const parentId = delegatedBy(runtime.store.projections.get('threads', child.threadId));
  if (!parentId) return null;
  const nodeId = taskNodeId(child.threadId);
  const outcome = await runtime.step(parentId, (t) => {
    if (t.state({ kind: 'execution_node', id: nodeId })) return { nodeId };
    const runId = t.context({ kind: 'thread_supervisor', id: parentId })?.activeRunId ?? null;
    const run = runId ? t.context({ kind: 'run', id: runId }) : null;
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
    const task = runtime.store.projections.get('runs', child.runId);
    if (task && isTerminal(task.status))
      t.deliver({ kind: 'execution_node', id: nodeId }, { type: 'END', status: endStatusOf(task) });
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
        },
      },
    });
    return { nodeId };
  });
  // The task runs all the same: only its place on the parent's graph is missing.
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
  const outcome = await runtime.step(parentId, (t) => {
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
 * Records each task's end on its parent as it commits (the runtime's publications), and at
 * start the ends committed while no Baton was watching (a restart between the two commits).
 * Returns the unsubscribe.
 */
export function watchDelegatedTasks(runtime: TaskRuntime): () => void {
  const store = runtime.store;
  const ended = (threadId: string) => {
    const child = store.projections.get('threads', threadId);
    const run = taskRun(store, threadId);
    if (!child || !run || !delegatedBy(child) || !isTerminal(run.status)) return;
    if (store.projections.get('context_transfers', resultTransferId(run.id))) return;
    void recordTaskEnd(runtime, child, run);
  };
  const stop = runtime.onEvents((events: DomainEvent[]) => {
    for (const e of events)
      if (e.type === 'run.status-changed' && isTerminal((e.payload as { to: string }).to)) ended(e.threadId);
  });
  for (const t of store.projections.list('threads')) if (delegatedBy(t)) ended(t.id);
  return stop;
}
