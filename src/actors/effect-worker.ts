import type { Effect, EffectKind } from '../domain/effects.js';
import type { Runtime } from './runtime.js';

/** Carries out one claimed effect; it settles the effect itself (see `settle`). */
export type EffectHandler = (effect: Effect, worker: EffectWorker) => Promise<void>;

/**
 * Claims outbox effects under a lease and carries them out after commit. A handler
 * settles its effect in the same step as the events its work produced, so "done" and
 * "what it did" are one commit; a worker that dies leaves the lease to expire and the
 * effect is claimed again.
 */
export class EffectWorker {
  constructor(
    readonly runtime: Runtime,
    private readonly handlers: Partial<Record<EffectKind, EffectHandler>>,
    readonly owner = 'worker-1',
    private readonly leaseMs = 30_000,
  ) {}

  /** Claims and runs what is claimable now; returns how many effects it ran. */
  async runOnce(limit = 16): Promise<number> {
    const kinds = Object.keys(this.handlers);
    const claimed = this.runtime.store.outbox.claim(this.owner, this.runtime.clock.nowMs(), this.leaseMs, limit, kinds);
    // Threads run in parallel; one thread's effects run in the order they were asked for
    // (a run's baseline checkpoint before anything else it asked).
    const byThread = new Map<string, Effect[]>();
    for (const e of claimed) byThread.set(e.threadId, [...(byThread.get(e.threadId) ?? []), e]);
    await Promise.all([...byThread.values()].map(async (effects) => {
      for (const effect of effects) await this.handlers[effect.kind]!(effect, this);
    }));
    return claimed.length;
  }

  /** Runs until nothing claimable is left (effects whose results enqueue more effects included). */
  async drain(maxRounds = 100): Promise<void> {
    for (let i = 0; i < maxRounds; i++) if ((await this.runOnce()) === 0) return;
  }

  /** Marks the effect completed (or failed) in the same step as `work`. */
  settle(effect: Effect, status: 'completed' | 'failed', work: Parameters<Runtime['step']>[1], error: string | null = null) {
    return this.runtime.step(effect.threadId, (thread) => {
      const result = work(thread);
      thread.current.effectUpdates.push({ effectId: effect.id, status, error, leaseOwner: this.owner });
      return result;
    });
  }
}
