import { effectPayloads, type Effect } from '../domain/effects.js';
import type { ErrorInfo } from '../domain/errors.js';
import type { EffectWorkerPort } from './effect-handler.js';
import { reportEffectOutcome } from './live-work-effects.js';
import type { StepContext } from './step-context.js';

/** What the user asked for that did not reach the agent, told on the run (the run itself goes on). */
const lostOnTheRun: Partial<Record<Effect['kind'], string>> = {
  'provider.turn.interrupt': 'the interrupt did not reach the provider',
  'provider.turn.steer': 'the steering message did not reach the provider',
};

function warnOnTheRun(thread: StepContext, effect: Effect, error: ErrorInfo): void {
  const what = lostOnTheRun[effect.kind];
  if (!what || !effect.runId) return;
  thread.current.addEvent({
    type: 'runtime.warning',
    payload: { threadId: effect.threadId, runId: effect.runId, message: `${what}: ${error.message}` },
  });
}

/**
 * A provider effect that could not be carried out: settled failed with the error, told to
 * what waited on it (an answer's request), and a turn that could not start ends its
 * attempt failed with the error visible on the run; a lost interrupt or steer is a warning
 * on its run (the run goes on: an interrupt's deadline still escalates). Used by provider handlers and by the
 * worker for an effect whose provider this Baton lacks (`unsupported`).
 */
export async function failProviderEffect(worker: EffectWorkerPort, effect: Effect, error: ErrorInfo): Promise<void> {
  const settled = await worker.settle(
    effect,
    'failed',
    (t) => {
      warnOnTheRun(t, effect, error);
      return reportEffectOutcome(t, effect, error.message);
    },
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
