import type { CommandAck } from '../domain/command-ack.js';
import type { ProjectionRow } from '../domain/projections.js';
import type { Store } from '../persistence/store.js';
import { backgroundWork } from './background-work.js';
import { dropWakes } from './delegated-task-wake.js';
import { delegatedChildren } from './delegated-threads.js';
import type { EffectHandler } from './effect-handler.js';
import type { StepContext } from './step-context.js';

/**
 * The Stop cascade (feature-lifecycles "Interruption"): a Stop of a thread (`thread.stop`, or
 * `run.interrupt` with `holdQueue`) stops every thread delegated under it. A command holds
 * only its own thread, so the Stop's step queues a `delegated-tasks.stop` effect and the
 * cascade runs after commit: each delegated thread still working gets the same `thread.stop`
 * (its active run interrupted, its queue held, its agent's background work stopped), children
 * of children first. A child whose run has ended while its agent works on in the background
 * (a Claude helper) is still working. The Stop's own
 * step drops the wake-ups the thread's tasks still owe it (and cancels those still queued),
 * so when the stopped tasks end, nothing restarts the thread.
 */

type Thread = ProjectionRow<'threads'>;

/**
 * A step of the thread's Stop calls it: the wake-ups its tasks owe it are dropped, and the
 * cascade is queued when it has delegated threads.
 */
export function queueDelegatedStop(thread: StepContext, store: Store, reason: 'stop' | 'interrupt'): void {
  dropWakes(thread, reason === 'stop' ? 'the thread was stopped' : 'the thread was interrupted with its queue held');
  if (delegatedChildren(store, thread.threadId).length === 0) return;
  thread.current.addEffect(
    { kind: 'delegated-tasks.stop', provider: null, runId: null, nodeId: null, payload: { reason } },
    null,
  );
}

/** Every thread delegated under `threadId`, children of children before their parent (post-order). */
export function delegatedDepthFirst(store: Store, threadId: string, seen = new Set<string>()): Thread[] {
  const order: Thread[] = [];
  for (const child of delegatedChildren(store, threadId)) {
    if (seen.has(child.id)) continue;
    seen.add(child.id);
    order.push(...delegatedDepthFirst(store, child.id, seen), child);
  }
  return order;
}

/**
 * Still working: a run active or queued, or work of its agent's that outlives its runs (a
 * background helper, its asks, a turn of the agent's own), and not stopped already. A held
 * queue with a run active means that run was interrupted with the hold (a send releases a
 * hold), so it is ending already; a held queue with none is idle for good (a Stop ended its
 * background work too). A finished child is left alone.
 */
export const stillWorking = (store: Store, t: Thread): boolean =>
  !t.queueHeld && (t.activeRunId !== null || t.queuedRunCount > 0 || backgroundWork(store, t.id) !== null);

/** What the cascade needs of the runtime: its store and the command entry (a child's `thread.stop`). */
export interface CascadeRuntime {
  readonly store: Store;
  dispatch(command: unknown): Promise<CommandAck>;
}

/**
 * The `delegated-tasks.stop` handler: a `thread.stop` to each delegated thread still working,
 * depth-first. Each command id is derived from the effect, so an effect carried out again
 * (its worker died) sends the same commands and changes nothing more. A child refusing
 * (deleted meanwhile) does not stop the rest.
 */
export function delegatedTasksStopHandler(runtime: CascadeRuntime): EffectHandler {
  return async (effect, worker) => {
    const stopped: string[] = [];
    const refused: string[] = [];
    for (const child of delegatedDepthFirst(runtime.store, effect.threadId)) {
      // Read again: stopping one child may have ended another's work meanwhile.
      const now = runtime.store.projections.get('threads', child.id);
      if (!now || !stillWorking(runtime.store, now)) continue;
      const ack = await runtime.dispatch({
        type: 'thread.stop',
        threadId: child.id,
        commandId: `${effect.id}:stop:${child.id}`,
      });
      (ack.ok ? stopped : refused).push(child.id);
    }
    if (refused.length)
      worker.runtime.logger.warn({ threadId: effect.threadId, refused }, 'a delegated thread refused its stop');
    await worker.settle(effect, 'completed', () => ({}));
  };
}
