import type { Logger } from 'pino';
import type { Seed } from '../context/reseed.js';
import type { Effect } from '../domain/effects.js';
import type { ErrorInfo } from '../domain/errors.js';
import type { ThreadId } from '../domain/ids.js';
import type { Store } from '../persistence/store.js';
import type { StepContext } from './step-context.js';
import type { StepOutcome } from './step-outcome.js';

/**
 * The effect side of the provider seam (types only): what a handler of an outbox effect
 * may use. A provider's handlers see these ports and nothing else of the runtime; the
 * host side of the seam is `ProviderHost` (./provider-host.ts).
 */

/** What effect handlers need of the runtime: its store, steps on a thread, provider events and the workspace check. */
export interface EffectHost {
  readonly store: Store;
  readonly logger: Logger;
  /** Runs `work` as one step on the thread. */
  step<T extends Record<string, unknown>>(threadId: ThreadId, work: (ctx: StepContext) => T): Promise<StepOutcome<T>>;
  /** A normalized provider event, as an adapter reports it. */
  ingest(raw: unknown): Promise<StepOutcome<Record<string, unknown>>>;
  /** Refuses a cwd that cannot be a workspace (see Runtime.checkWorkspace). */
  checkWorkspace(cwd: string): Promise<void>;
}

/** What a handler may use of the worker that carries out its effect. */
export interface EffectWorkerPort {
  /** The worker's lease owner: a settlement applies only while it still holds the lease. */
  readonly owner: string;
  readonly runtime: EffectHost;
  /** Marks the effect completed (or failed) in the same step as `work`. */
  settle<T extends Record<string, unknown>>(
    effect: Effect,
    status: 'completed' | 'failed',
    work: (ctx: StepContext) => T,
    error?: string | null,
  ): Promise<StepOutcome<T>>;
  /** Settles the effect completed, telling what waited on it (an answer's request) that it was carried out. */
  complete(effect: Effect): Promise<void>;
  /**
   * Settles the effect failed with `error`, telling what waited on it; a turn that could
   * not start ends its attempt failed (see `failProviderEffect`).
   */
  fail(effect: Effect, error: ErrorInfo): Promise<void>;
  /**
   * For a `provider.turn.start` of a `provider_recovery` attempt or of a fork's first run
   * resolved portably: Baton's account of the runs it must answer from, recorded before the
   * provider sees it (see `reseedFor`); null otherwise.
   */
  reseed(effect: Effect, maxChars: number): Promise<Seed | null>;
}

/** Carries out one claimed effect; it settles the effect itself (see `EffectWorkerPort.complete`/`fail`). */
export type EffectHandler = (effect: Effect, worker: EffectWorkerPort) => Promise<void>;
