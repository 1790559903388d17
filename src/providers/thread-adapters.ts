import type { EffectHandler } from '../actors/effect-handler.js';
import { seededText } from '../context/reseed.js';
import type { Effect, ProviderEffectKind } from '../domain/effects.js';
import { toErrorInfo } from '../domain/errors.js';
import { ThreadId } from '../domain/ids.js';

/** What every provider's per-thread adapter offers: carry out an effect, say whether it runs, stop, detach. */
export interface ThreadAdapter {
  readonly running: boolean;
  carryOut(effect: Effect): Promise<void>;
  /** Releases its agent on purpose (an idle thread). */
  stop(): unknown;
  /** Shutdown: stops its agent and reports nothing more. */
  detach(signal: NodeJS.Signals): Promise<void> | void;
}

export interface ThreadAdaptersOptions<A> {
  /** A new adapter for an app thread. */
  make(threadId: ThreadId): A;
  /** Whether a thread has a run going (an idle thread's agent is released). */
  activeRunId(threadId: string): string | null;
  /** How much of Baton's own account a reseeded turn may carry (the provider's `maxRecommendedHandoffChars`). */
  maxHandoffChars: number;
}

/**
 * A provider's adapters, one per app thread, made on demand, and the effect handler they
 * share: a turn start whose provider thread lacks the history it answers from (a
 * `provider_recovery` attempt, or a fork's first run resolved portably) carries Baton's own
 * account first, as user text; an effect the adapter carries
 * out is completed, one it throws on is failed with the typed error.
 */
export class ThreadAdapters<A extends ThreadAdapter> {
  private readonly adapters = new Map<string, A>();

  constructor(private readonly options: ThreadAdaptersOptions<A>) {}

  /** The adapter of an app thread (a test or the CLI may name it by a plain string: it is parsed here). */
  get(threadId: string): A {
    let adapter = this.adapters.get(threadId);
    if (!adapter) {
      adapter = this.options.make(ThreadId.parse(threadId));
      this.adapters.set(threadId, adapter);
    }
    return adapter;
  }

  /** The effect handlers for these kinds, for the EffectWorker. */
  handlers(kinds: readonly ProviderEffectKind[]): Partial<Record<ProviderEffectKind, EffectHandler>> {
    const handler: EffectHandler = async (effect, worker) => {
      try {
        const seed = await worker.reseed(effect, this.options.maxHandoffChars);
        const payload = effect.payload;
        // A portable fork starts a fresh provider thread: the adapter is not asked to fork natively.
        const fork = seed?.portableFork ? { fork: null } : {};
        await this.get(effect.threadId).carryOut(
          seed
            ? { ...effect, payload: { ...payload, ...fork, text: seededText(seed, String(payload.text ?? '')) } }
            : effect,
        );
        await worker.complete(effect);
      } catch (error) {
        await worker.fail(effect, toErrorInfo(error));
      }
    };
    return Object.fromEntries(kinds.map((k) => [k, handler]));
  }

  /** Releases the agents of threads with no active run. Returns how many were stopped. */
  reapIdle(): number {
    let n = 0;
    for (const [threadId, adapter] of this.adapters) {
      if (!this.options.activeRunId(threadId) && adapter.running) {
        void adapter.stop();
        n += 1;
      }
    }
    return n;
  }

  /** Shutdown: stops every agent and reports nothing more; resolves once they are gone. */
  async stopAll(signal: NodeJS.Signals): Promise<void> {
    await Promise.all([...this.adapters.values()].map((a) => a.detach(signal)));
  }
}
