import { z } from 'zod';
import { effectPayloads, type Effect, type EffectKind } from '../domain/effects.js';
import type { Store } from '../persistence/store.js';
import type { EffectWorkerPort } from './effect-handler.js';
import type { StepContext } from './step-context.js';
import type { Step } from './step.js';

/**
 * The provider effects that belong to a run's live work: asked for while the run is live,
 * moot once it is not. They are cancelled in the commit that ends the run's live work, and
 * a handler checks again before carrying one out (a worker may have claimed it before).
 *
 * Every other kind must still happen after the run's end: `provider.session.stop` (asked
 * for by an interrupt by policy as the run ends), `provider.thread.rollback/fork/resume`
 * (thread-level, about runs that ended), the `checkpoint.*` effects (the barrier's own, and
 * the baseline the run's diff and rollback need) and `delegated-tasks.stop`.
 */
export const liveWorkEffectKinds: ReadonlySet<EffectKind> = new Set<EffectKind>([
  'provider.turn.start',
  'provider.turn.steer',
  'provider.turn.interrupt',
  'provider.runtime-request.respond',
]);

const turnEffectKinds: ReadonlySet<EffectKind> = new Set<EffectKind>([
  'provider.turn.start',
  'provider.turn.steer',
  'provider.turn.interrupt',
]);

/**
 * Cancels, in this step's unit, the run's live-work effects that are still waiting: the
 * thread's `open` effects from the outbox and those this step asked for.
 */
export function cancelLiveWorkEffects(step: Step, open: readonly Effect[], runId: string, reason: string): void {
  const updated = new Set(step.effectUpdates.map((u) => u.effectId));
  for (const e of [...open, ...step.effects]) {
    if (e.runId !== runId || !liveWorkEffectKinds.has(e.kind) || updated.has(e.id)) continue;
    // The answer to a request that outlives its run (a background subagent's) must go on.
    if (outlivesRun(e)) continue;
    step.effectUpdates.push({ effectId: e.id, status: 'cancelled', error: reason });
    updated.add(e.id);
  }
}

/**
 * What the gate reads of a stored run and request (their committed rows, outside any
 * step): parsed, since a row is JSON written by whichever version of the machine.
 */
const StoredRun = z.object({
  value: z.unknown(),
  context: z.object({ status: z.string(), activeAttemptId: z.string().nullable() }),
});
const StoredRequest = z.object({ value: z.unknown() });

/** An answer to a request that outlives its run (its respond effect says so). */
const outlivesRun = (e: Pick<Effect, 'kind' | 'payload'>): boolean =>
  e.kind === 'provider.runtime-request.respond' && e.payload['outlivesRun'] === true;

const storedRow = <T>(schema: z.ZodType<T>, store: Store, id: string): T | null => {
  const parsed = schema.safeParse(store.entities.get(id)?.snapshot);
  return parsed.success ? parsed.data : null;
};

/**
 * Why a claimed effect must not reach the provider any more, or null if it may: its run
 * must exist and be live (not for an answer to a request that outlives its run), a turn
 * effect must be for the run's active attempt, and an answer's request must still be waiting
 * for it.
 */
export function staleEffectReason(store: Store, effect: Effect): string | null {
  if (!liveWorkEffectKinds.has(effect.kind) || !effect.runId) return null;
  const run = storedRow(StoredRun, store, effect.runId);
  if (!run) return `run ${effect.runId} does not exist`;
  const live = typeof run.value === 'object' && run.value !== null && 'live' in run.value;
  // A request that outlives its run (a background subagent's) is answered after its run ended.
  if (!live && !outlivesRun(effect)) return `run ${effect.runId} is no longer live (${run.context.status})`;
  const attemptId = effect.payload['attemptId'];
  if (turnEffectKinds.has(effect.kind) && attemptId !== run.context.activeAttemptId) {
    return `attempt ${String(attemptId)} is not the active attempt of run ${effect.runId}`;
  }
  if (effect.kind === 'provider.runtime-request.respond') {
    const requestId = String(effect.payload['requestId']);
    const request = storedRow(StoredRequest, store, requestId);
    if (request?.value !== 'answering') return `request ${requestId} is not waiting for its answer to be delivered`;
  }
  return null;
}

/**
 * Tells the entities an effect was for how it ended, inside the step that settles it:
 * an answer the provider took resolves its request, one it could not take cancels it.
 */
export function reportEffectOutcome(
  thread: StepContext,
  effect: Effect,
  failure: string | null,
): Record<string, unknown> {
  const answer =
    effect.kind === 'provider.runtime-request.respond'
      ? effectPayloads['provider.runtime-request.respond'].safeParse(effect.payload)
      : null;
  if (answer?.success) {
    const ref = { kind: 'runtime_request' as const, id: answer.data.requestId };
    if (thread.state(ref)?.value === 'answering')
      thread.deliver(ref, failure === null ? { type: 'ANSWER_DELIVERED' } : { type: 'ANSWER_FAILED', reason: failure });
  }
  return {};
}

/**
 * Settles a stale effect `cancelled` with its reason, without carrying it out. Returns
 * false if it was settled meanwhile (its lease lost: cancelled under the worker already).
 */
export async function cancelStaleEffect(worker: EffectWorkerPort, effect: Effect, reason: string): Promise<boolean> {
  const outcome = await worker.runtime.step(effect.threadId, (thread) => {
    const result = reportEffectOutcome(thread, effect, reason);
    thread.current.effectUpdates.push({
      effectId: effect.id,
      status: 'cancelled',
      error: reason,
      leaseOwner: worker.owner,
    });
    return result;
  });
  return outcome.ok;
}
