import type { EffectHandler } from '../../src/actors/effect-handler.js';
import { reportEffectOutcome } from '../../src/actors/live-work-effects.js';

/**
 * The provider's side of an answer in runtime-level tests (the live Codex tests carry it
 * out for real), settled the way a provider handler settles it.
 */
export const providerTakesAnswers: EffectHandler = async (effect, worker) => {
  await worker.settle(effect, 'completed', (t) => reportEffectOutcome(t, effect, null));
};

/** The provider could not take the answer (its callback is gone). */
export const providerLosesAnswers: EffectHandler = async (effect, worker) => {
  const reason = 'the Codex callback is gone';
  await worker.settle(effect, 'failed', (t) => reportEffectOutcome(t, effect, reason), reason);
};
