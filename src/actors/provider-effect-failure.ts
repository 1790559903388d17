import { effectPayloads, type Effect } from '../domain/effects.js';
import type { ErrorInfo } from '../domain/errors.js';
import type { EffectWorkerPort } from './effect-handler.js';
import { reportEffectOutcome } from './live-work-effects.js';

/**
 * A provider effect that could not be carried out: settled failed with the error, told to
 * what waited on it (an answer's request), and a turn that could not start ends its
 * attempt failed with the error visible on the run. Used by provider handlers and by the
 * worker for an effect whose provider this Baton lacks (`unsupported`).
 */
export async function failProviderEffect(worker: EffectWorkerPort, effect: Effect, error: ErrorInfo): Promise<void> {
  const settled = await worker.settle(
    effect,
    'failed',
    (t) => reportEffectOutcome(t, effect, error.message),
    error.message,
  );
  // Lease lost: the effect was cancelled under us (its run ended); there is nothing to report.
  if (!settled.ok && settled.error.code === 'lease_lost') return;
  if (effect.kind !== 'provider.turn.start' || !effect.runId) return;
  const p = effectPayloads['provider.turn.start'].parse(effect.payload);
  const outcome = await worker.runtime.ingest({
    type: 'turn.completed',
    threadId: effect.threadId,
    runId: effect.runId,
    attemptId: p.attemptId,
    nodeId: p.rootNodeId,
    status: 'failed',
    error,
  });
  if (!outcome.ok && outcome.error.code !== 'not_found')
    worker.runtime.logger.warn(
      { effect: effect.id, error: outcome.error },
      'a failed turn start could not end its attempt',
    );
}
