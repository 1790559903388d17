import { afterAll } from 'vitest';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import type { EffectHandler } from '../../src/actors/effect-handler.js';
import { useRuntime } from './runtime.js';
import { tempDir } from './temp.js';

/** A turn start as a provider carries it out, played by the test: the seed (a portable fork's) recorded first. */
export const seededTurnStart: EffectHandler = async (effect, worker) => {
  await worker.reseed(effect, 100_000);
  await worker.complete(effect);
};

/**
 * A runtime harness with real git checkpoints in a temp folder (removed after the file's
 * tests) whose turn starts are `seededTurnStart`: the provider's part (turns, replies) is
 * the test's to play.
 */
export function useCheckpointedRuntime(prefix: string) {
  const data = tempDir(prefix);
  afterAll(data.cleanup);
  return useRuntime({
    checkpoints: new CheckpointStore({ root: join(data.dir, 'checkpoints') }),
    handlers: () => ({ 'provider.turn.start': seededTurnStart }),
  });
}
