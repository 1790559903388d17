import { reseedFor, type Seed } from '../context/reseed.js';
import { isProviderEffectKind, type Effect, type RuntimeEffectKind } from '../domain/effects.js';
import type { ProviderCapabilities } from '../domain/capabilities.js';
import type { ForkOrigin } from '../domain/entities.js';
import { BatonError, type ErrorInfo } from '../domain/errors.js';
import type { Clock } from '../domain/sources.js';
import { unsupportedProvider, type ProviderRegistry } from '../providers/registry.js';
import type { EffectHandler, EffectHost, EffectWorkerPort } from './effect-handler.js';
import { cancelStaleEffect, reportEffectOutcome, staleEffectReason } from './live-work-effects.js';
import { forkStrategy } from './policy.js';
import { failProviderEffect } from './provider-effect-failure.js';
import { boundNativeThreadRef } from './runtime-provider-host.js';
import type { StepContext } from './step-context.js';
import type { StepOutcome } from './step-outcome.js';

/** What the worker needs of the runtime beside what its handlers need: time, the providers, commits as they happen. */
export interface WorkerRuntime extends EffectHost {
  readonly clock: Clock;
  readonly providers: ProviderRegistry;
  /** Subscribes to commits that queued effects; returns the unsubscribe. */
  onEffectsQueued(listener: () => void): () => void;
  /** A thread's declared capabilities (its provider's, or its ACP agent's). */
  threadCapabilities(threadId: string): ProviderCapabilities;
}

/**
 * Claims outbox effects under a lease and carries them out after commit. A handler
 * settles its effect in the same step as the events its work produced, so "done" and
 * "what it did" are one commit; a worker that dies leaves the lease to expire and the
 * effect is claimed again.
 *
 * Each thread has a lane: its effects run one after another, in the order they were asked
 * for (a run's baseline checkpoint before anything else it asked), while other threads'
 * lanes run beside it. A busy lane only holds its own thread: the worker keeps claiming
 * for every other thread, and claims a busy thread's next effects once its lane is free.
 * The leases of effects still running are renewed, so a long one is never claimed twice.
 *
 * Baton's own effects (checkpoints) go to the runtime handlers given here; a provider
 * effect goes to the handler its provider registered for its kind (`runtime.providers`),
 * so providers never take each other's work. One for a provider this Baton lacks, or of a
 * kind its provider does not carry out, is settled failed `unsupported` (a turn start
 * then ends its run failed, the error visible).
 */
export class EffectWorker implements EffectWorkerPort {
  private readonly lanes = new Map<string, Promise<void>>();
  /** Effects claimed and not yet finished, whose leases this worker keeps renewing. */
  private readonly inFlight = new Set<string>();
  private readonly laneFreeListeners = new Set<() => void>();
  /** Handler failures no caller saw yet; `drain` throws the first one. */
  private readonly failures: unknown[] = [];

  constructor(
    readonly runtime: WorkerRuntime,
    private readonly handlers: Partial<Record<RuntimeEffectKind, EffectHandler>>,
    readonly owner = 'worker-1',
    private readonly leaseMs = 30_000,
  ) {}

  /**
   * Renews the leases of running effects, claims what is claimable for threads whose lane
   * is free and starts it on their lanes. Does not wait for the work; returns how many
   * effects it claimed.
   */
  poll(limit = 16): number {
    const now = this.runtime.clock.nowMs();
    const outbox = this.runtime.store.outbox;
    if (this.inFlight.size) outbox.renew(this.owner, [...this.inFlight], now + this.leaseMs, now);
    // Provider kinds are claimed whoever's they are: the lane settles one its provider cannot do (see carryOut).
    const kinds = [...Object.keys(this.handlers), ...this.runtime.providers.kinds()];
    const claimed = outbox.claim(this.owner, now, this.leaseMs, limit, kinds, new Set(this.lanes.keys()));
    const byThread = new Map<string, Effect[]>();
    for (const e of claimed) byThread.set(e.threadId, [...(byThread.get(e.threadId) ?? []), e]);
    for (const [threadId, effects] of byThread) {
      effects.forEach((e) => this.inFlight.add(e.id));
      this.lanes.set(threadId, this.runLane(threadId, effects));
    }
    return claimed.length;
  }

  /** Claims what is claimable now and waits until every lane is done; returns how many effects it claimed. */
  async runOnce(limit = 16): Promise<number> {
    const n = this.poll(limit);
    await this.idle();
    return n;
  }

  /**
   * Runs until nothing is claimable and no lane is busy (effects whose results enqueue
   * more effects included). Throws the first handler failure it saw.
   */
  async drain(): Promise<void> {
    for (;;) {
      const claimed = this.poll();
      if (claimed === 0 && this.lanes.size === 0) break;
      if (this.lanes.size) await Promise.race(this.lanes.values());
    }
    const failure = this.failures.splice(0)[0];
    if (failure !== undefined) throw failure;
  }

  /** Resolves when every lane running now has finished. */
  async idle(): Promise<void> {
    while (this.lanes.size) await Promise.all(this.lanes.values());
  }

  /** Calls `listener` each time a thread's lane finishes (its next effects may be claimable). */
  onLaneFree(listener: () => void): () => void {
    this.laneFreeListeners.add(listener);
    return () => this.laneFreeListeners.delete(listener);
  }

  /**
   * Keeps the worker going by itself: it claims after every commit that queued effects (coalesced), whenever a
   * lane frees, and on a slow beat (leases to renew, effects whose lease expired). Returns
   * the stop.
   */
  start(beatMs = 1_000): () => void {
    let scheduled = false;
    let stopped = false;
    const kick = (): void => {
      if (scheduled || stopped) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        if (stopped) return;
        try {
          this.poll();
        } catch (error) {
          this.runtime.logger.error({ err: error }, 'the effect worker could not claim');
        }
      });
    };
    // Claims only when a commit queued effects (not after every command), when a lane frees, and on the beat.
    const offEvents = this.runtime.onEffectsQueued(kick);
    const offLanes = this.onLaneFree(kick);
    const beat = setInterval(kick, beatMs);
    kick();
    return () => {
      stopped = true;
      offEvents();
      offLanes();
      clearInterval(beat);
    };
  }

  /** Marks the effect completed (or failed) in the same step as `work`. */
  settle<T extends Record<string, unknown>>(
    effect: Effect,
    status: 'completed' | 'failed',
    work: (ctx: StepContext) => T,
    error: string | null = null,
  ): Promise<StepOutcome<T>> {
    return this.runtime.step(effect.threadId, (thread) => {
      const result = work(thread);
      thread.current.effectUpdates.push({ effectId: effect.id, status, error, leaseOwner: this.owner });
      return result;
    });
  }

  /** Settles the effect completed, telling what waited on it (an answer's request) that it was carried out. */
  async complete(effect: Effect): Promise<void> {
    await this.settle(effect, 'completed', (t) => reportEffectOutcome(t, effect, null));
  }

  /** Settles the effect failed with `error` (see `failProviderEffect`). */
  fail(effect: Effect, error: ErrorInfo): Promise<void> {
    return failProviderEffect(this, effect, error);
  }

  /** Baton's account for a turn start that lacks its history (see `reseedFor`), recorded first; null for any other effect. */
  reseed(effect: Effect, maxChars: number): Promise<Seed | null> {
    const runtime = this.runtime;
    return reseedFor(
      {
        store: runtime.store,
        step: (threadId, work) => runtime.step(threadId, work),
        forkStrategy: (threadId, fork) => forkStrategyOn(runtime, threadId, fork),
      },
      effect,
      maxChars,
    );
  }

  /**
   * Hands one claimed effect to its handler, as a lane does: Baton's own by kind, a
   * provider's by (provider, kind), after the gate that settles a stale one `cancelled`.
   */
  async carryOut(effect: Effect): Promise<void> {
    const kind = effect.kind;
    if (!isProviderEffectKind(kind)) return this.handlers[kind]!(effect, this);
    // Nothing reaches any provider for a run that is no longer live (it ended while this waited).
    const stale = staleEffectReason(this.runtime.store, effect);
    if (stale) return void (await cancelStaleEffect(this, effect, stale));
    const handler = effect.provider ? this.runtime.providers.handler(effect.provider, kind) : null;
    if (handler) return handler(effect, this);
    const registered = effect.provider ? this.runtime.providers.get(effect.provider) : null;
    const error = registered
      ? { code: 'unsupported' as const, message: `the ${registered.id} provider does not carry out ${kind}` }
      : unsupportedProvider(effect.provider).toInfo();
    await this.fail(effect, error);
  }

  /**
   * One thread's claimed effects, in order. A handler that throws stops the lane: the
   * effects after it stay leased and are claimed again once their lease expires.
   */
  private async runLane(threadId: string, effects: Effect[]): Promise<void> {
    try {
      for (const effect of effects) {
        await this.carryOut(effect);
        this.inFlight.delete(effect.id);
      }
    } catch (error) {
      if (this.failures.length < 16) this.failures.push(error);
      this.runtime.logger.error({ err: error, threadId }, 'an effect handler failed');
    } finally {
      // What is left did not run: its leases are left to expire rather than renewed.
      effects.forEach((e) => this.inFlight.delete(e.id));
      this.lanes.delete(threadId);
      for (const listener of this.laneFreeListeners) listener();
    }
  }
}

/** The fork policy on a thread: its declared capabilities, its provider, and whether the source run is native to it. */
function forkStrategyOn(
  runtime: WorkerRuntime,
  threadId: string,
  fork: ForkOrigin,
): 'native_fork' | 'portable_context' {
  const thread = runtime.store.projections.get('threads', threadId);
  if (!thread) throw new BatonError('not_found', `no thread ${threadId}`);
  const source = fork.sourceProviderThreadId;
  return forkStrategy(runtime.threadCapabilities(threadId), thread.provider, {
    sourceProvider: fork.sourceProvider,
    sourceIsNative: source !== null && boundNativeThreadRef(runtime.store, source) !== null,
  });
}
