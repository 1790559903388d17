import type { DelegatedTask, RunOrigin } from '../domain/events.js';
import type { RunId, ThreadId } from '../domain/ids.js';
import type { RunStatus } from '../domain/statuses.js';
import type { Store } from '../persistence/store.js';
import { backgroundWork } from './background-work.js';
import type { StepContext } from './step-context.js';
import { queueOwnRun } from './own-runs.js';

/**
 * The wake-up a delegated task owes its parent (feature-lifecycles "Interruption"). When a
 * task ends and its result has not reached the parent's agent (no thread_wait or task_status
 * of that agent returned the end), Baton queues a run on the parent (`queue_after_active`)
 * whose message tells the task's end and result: the run's `origin` says it is a wake-up.
 *
 * The parent keeps each task as a `delegated_tasks` row, changed only by steps of the parent
 * (a step holds one thread), so each decision and the run it queues commit together: one
 * wake-up per task, across retries and restarts. While the parent's agent is running, an
 * ended task is `owed` until that run ends (the agent may still read it); a Stop of the
 * parent drops every wake not yet given, and cancels those still queued, so nothing
 * automatic restarts a stopped thread.
 */

/** What a wake-up's message is built from: the store (the task's words) and how long it may be. */
export interface WakeEnv {
  store: Store;
  /** The parent provider's `maxRecommendedHandoffChars`: a wake-up is bounded like a handoff. */
  maxChars: number;
}

const supervisorRef = (t: StepContext) => ({ kind: 'thread_supervisor' as const, id: t.threadId });
const write = (t: StepContext, task: DelegatedTask) =>
  t.current.addEvent({ type: 'delegated-task.updated', payload: { task } });
/** Not decided yet: the task runs, or its wake-up waits for the parent's run to end. */
const undecided = (row: DelegatedTask) => row.wake === 'awaiting_end' || row.wake === 'owed';

/** The parent's record of a task (in a step of the parent), or null. */
export const taskRow = (t: StepContext, taskId: string): DelegatedTask | null =>
  t.current.view.get('delegated_tasks', taskId);

/**
 * Records a task on its parent as it is delegated: a wake-up awaits its end, unless the
 * delegation declined one. A row already there (a retried delegation) is kept.
 */
export function recordTask(
  t: StepContext,
  task: { taskId: ThreadId; taskRunId: RunId; delegatingRunId: RunId | null; wake: boolean },
): DelegatedTask {
  const existing = taskRow(t, task.taskId);
  if (existing) return existing;
  const row: DelegatedTask = {
    id: task.taskId,
    threadId: t.threadId,
    delegatingRunId: task.delegatingRunId,
    taskRunId: task.taskRunId,
    endStatus: null,
    wake: task.wake ? 'awaiting_end' : 'declined',
    afterRunId: null,
    wakeRunId: null,
    reason: task.wake ? null : 'delegate_task asked for no wake-up',
  };
  write(t, row);
  return row;
}

/**
 * The task's run has ended (a step of the parent): a wake-up awaiting it is queued now, or,
 * while the parent's agent runs, owed once that run ends. Anything else stays as it is.
 */
export function taskEnded(t: StepContext, env: WakeEnv, taskId: string, status: RunStatus): void {
  const row = taskRow(t, taskId);
  if (!row || row.endStatus !== null || !undecided(row)) {
    if (row && row.endStatus === null) write(t, { ...row, endStatus: status });
    return;
  }
  const ended = { ...row, endStatus: status };
  const activeRunId = t.context(supervisorRef(t))?.activeRunId ?? null;
  if (activeRunId) write(t, { ...ended, wake: 'owed', afterRunId: activeRunId });
  else queueWake(t, env, ended);
}

/** The wake-ups owed after a run of the parent that is no longer active: queued now (behind what the parent does). */
export function wakeOwed(t: StepContext, env: WakeEnv): number {
  const activeRunId = t.context(supervisorRef(t))?.activeRunId ?? null;
  const due = t.current.view.list(
    'delegated_tasks',
    t.threadId,
    (r) => r.wake === 'owed' && r.afterRunId !== activeRunId,
  );
  for (const row of due) queueWake(t, env, row);
  return due.length;
}

/**
 * Whether the thread owes a wake-up after a run (read outside a step, to know whether a step
 * is worth it): after `runId`, or (`runId` null, at start) after any run no longer active.
 */
export function owesAfter(store: Store, threadId: string, runId: string | null): boolean {
  const owed = store.projections.list('delegated_tasks', threadId).filter((r) => r.wake === 'owed');
  if (runId !== null) return owed.some((r) => r.afterRunId === runId);
  const active = store.projections.get('threads', threadId)?.activeRunId ?? null;
  return owed.some((r) => r.afterRunId !== active);
}

function queueWake(t: StepContext, env: WakeEnv, row: DelegatedTask): void {
  const sup = t.context(supervisorRef(t));
  // A stopped parent holds its queue until its user sends again: a wake-up must not restart it.
  const refusal = !sup
    ? 'the parent thread is gone'
    : sup.status !== 'active'
      ? `the parent thread is ${sup.status}`
      : sup.queueHeld
        ? 'the parent thread is stopped (its queue is held)'
        : null;
  if (refusal || !sup) return write(t, { ...row, wake: 'dropped', reason: refusal });
  const status = row.endStatus ?? 'completed';
  const origin: RunOrigin = { kind: 'task_wake', taskId: row.id, taskRunId: row.taskRunId, status };
  const runId = queueOwnRun(t, sup, { text: wakeText(env, row, status), origin });
  if (!t.state({ kind: 'run', id: runId }))
    return write(t, { ...row, wake: 'dropped', reason: 'the parent thread took no message' });
  write(t, { ...row, wake: 'queued', wakeRunId: runId });
}

/**
 * A wake-up not given any more: still undecided, it is settled `to`; queued and not started,
 * its run is cancelled too. A wake-up run already going is left to run (a Stop interrupts it
 * as the active run).
 */
function settle(t: StepContext, row: DelegatedTask, to: 'read' | 'dropped', reason: string): void {
  if (undecided(row)) return write(t, { ...row, wake: to, reason });
  if (row.wake !== 'queued' || !row.wakeRunId) return;
  const sup = t.context(supervisorRef(t));
  if (!sup?.queue.includes(row.wakeRunId)) return;
  t.deliver(supervisorRef(t), { type: 'CANCEL_QUEUED', runId: row.wakeRunId, reason: `wake-up not needed: ${reason}` });
  write(t, { ...row, wake: to, reason });
}

/** A Stop of the parent (`thread.stop`, `run.interrupt { holdQueue }`): every wake-up not yet given is dropped. */
export function dropWakes(t: StepContext, reason: string): void {
  for (const row of t.current.view.list('delegated_tasks', t.threadId)) settle(t, row, 'dropped', reason);
}

/** One task's wake-up dropped (task_cancel). */
export function dropWake(t: StepContext, taskId: string, reason: string): void {
  const row = taskRow(t, taskId);
  if (row) settle(t, row, 'dropped', reason);
}

/** The parent's agent read the task's end itself (thread_wait, task_status, task_cancel): no wake-up for it. */
export function markRead(t: StepContext, taskId: string, how: string): void {
  const row = taskRow(t, taskId);
  if (row) settle(t, row, 'read', `the parent read its end (${how})`);
}

/** Said when the task's agent still works in the background as its end is told (a Claude helper). */
export const BACKGROUND_NOTE =
  "background: its agent still works in the background (a helper of its own); what it finds comes in a later run of the task's thread (thread_wait with its threadId waits for it)";

/** The wake-up's message: the task, how it ended and what it said last, cut to the parent's handoff bound. */
export function wakeText(env: WakeEnv, row: DelegatedTask, status: RunStatus): string {
  const run = env.store.projections.get('runs', row.taskRunId);
  const said = env.store.projections
    .list('turn_items', row.id)
    .filter((i) => i.runId === row.taskRunId && i.kind === 'assistant_message')
    .at(-1)?.text;
  const head = [
    `[Baton] A task you delegated has ended: ${status}.`,
    `taskId: ${row.id}`,
    `threadId: ${row.id} (the task's own thread)`,
    `runId: ${row.taskRunId}`,
    `status: ${status}`,
    ...(run?.error ? [`error: ${run.error.code}: ${run.error.message}`] : []),
    ...(backgroundWork(env.store, row.id) ? [BACKGROUND_NOTE] : []),
  ].join('\n');
  if (!said) return `${head}\n\nIt gave no answer. task_status or thread_read tells more.`;
  const budget = Math.max(1_000, env.maxChars - head.length - 200);
  const cut = said.length > budget;
  const result = cut ? said.slice(0, budget) : said;
  const note = cut ? `\n\n[cut: the first ${budget} of ${said.length} characters; task_status has all of it]` : '';
  return `${head}\n\nIts result:\n\n${result}${note}`;
}
