import type { StepContext } from '../actors/step-context.js';
import type { StepOutcome } from '../actors/step-outcome.js';
import { effectPayloads, type Effect } from '../domain/effects.js';
import { ForkOrigin } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';
import type { ThreadId } from '../domain/ids.js';
import type { Store } from '../persistence/store.js';
import { z } from 'zod';
import {
  buildPortableContext,
  type PortableContext,
  type PortableItem,
  type PortableMode,
} from './portable-context.js';

/**
 * The seed of a provider thread that lacks the history it must answer from, given with the
 * user's message as Baton's own account (recorded, `context.seeded`, before the provider
 * sees it):
 * - a reseed: an attempt whose reason is `provider_recovery` (a replacement for a provider
 *   thread that could not be resumed, or one marked divergent by a rollback) is told the
 *   thread's earlier runs;
 * - a handoff: the first run on another provider (`provider_handoff`) is told the runs its
 *   provider thread lacks: all of them for a new one, those since it last took part for one
 *   it returns to (a delta);
 * - a portable fork: a fork's first run that the fork policy does not resolve natively is
 *   told the source thread's runs up to the fork point, and starts a fresh provider thread.
 */

/** The items of the runs before `beforeOrdinal` that still count (not rolled back), with their run ordinals. */
export function portableItemsOf(store: Store, threadId: string, beforeOrdinal: number): PortableItem[] {
  const ordinals = new Map<string, number>();
  for (const r of store.projections.list('runs', threadId)) {
    if (r.ordinal !== null && r.ordinal < beforeOrdinal && r.status !== 'rolled_back') ordinals.set(r.id, r.ordinal);
  }
  return store.projections
    .list('turn_items', threadId)
    .filter((i) => i.runId !== null && ordinals.has(i.runId))
    .map((i) => ({
      runOrdinal: ordinals.get(i.runId!)!,
      kind: i.kind,
      text: i.text,
      status: i.status,
      data: i.data,
      rolledBack: i.rolledBack,
    }));
}

/** What a seed needs of the runtime: the read model, a step to record the seed in, and the fork policy. */
export interface ReseedHost {
  readonly store: Store;
  step<T extends Record<string, unknown>>(threadId: ThreadId, work: (ctx: StepContext) => T): Promise<StepOutcome<T>>;
  /** How the fork policy resolves a fork's first run on this thread (see `forkStrategy`). */
  forkStrategy(threadId: string, fork: ForkOrigin): 'native_fork' | 'portable_context';
}

export interface Seed {
  text: string;
  context: PortableContext;
  /** The seed stands in for a native fork: the turn starts a fresh provider thread, not a fork of the source's. */
  portableFork: boolean;
}

/** Whose runs a seed tells, up to which run, and whether it replaces a native fork. */
interface SeedPlan {
  fromThreadId: ThreadId;
  beforeOrdinal: number;
  /** All of those runs, or (a handoff back to a provider thread) only those after one it already holds. */
  mode: PortableMode;
  portableFork: boolean;
}

const Handoff = z.object({ sinceOrdinal: z.number().int().nonnegative() });

function planFor(runtime: ReseedHost, effect: Effect, reason: unknown, runId: string): SeedPlan | null {
  const store = runtime.store;
  if (reason === 'provider_recovery' || reason === 'provider_handoff') {
    const ordinal = store.projections.get('runs', runId)?.ordinal;
    if (!ordinal) throw new BatonError('not_found', `run ${runId} has not started`);
    const handoff = reason === 'provider_handoff' ? Handoff.safeParse(effect.payload.handoff) : null;
    if (handoff && !handoff.success)
      throw new BatonError('invalid_payload', `a handoff turn start without its handoff: ${handoff.error.message}`);
    const since = handoff?.data?.sinceOrdinal ?? 0;
    const mode: PortableMode = since > 0 ? { type: 'delta', sinceRunOrdinal: since } : { type: 'full' };
    return { fromThreadId: effect.threadId, beforeOrdinal: ordinal, mode, portableFork: false };
  }
  const fork = ForkOrigin.nullable().optional().safeParse(effect.payload.fork);
  if (!fork.success)
    throw new BatonError('invalid_payload', `a turn start with an unreadable fork origin: ${fork.error.message}`);
  if (!fork.data || runtime.forkStrategy(effect.threadId, fork.data) === 'native_fork') return null;
  const sourceOrdinal = store.projections.get('runs', fork.data.sourceRunId)?.ordinal;
  if (!sourceOrdinal) throw new BatonError('not_found', `the fork's source run ${fork.data.sourceRunId} is gone`);
  return {
    fromThreadId: fork.data.sourceThreadId,
    beforeOrdinal: sourceOrdinal + 1,
    mode: { type: 'full' },
    portableFork: true,
  };
}

/**
 * For a `provider.turn.start` that needs one: builds the full portable context and records
 * it (with, for a portable fork, its resolution); the same seed is reused if the effect runs
 * again. Null for any other effect, or a reseed with nothing earlier to tell.
 */
export async function reseedFor(runtime: ReseedHost, effect: Effect, maxChars: number): Promise<Seed | null> {
  if (effect.kind !== 'provider.turn.start' || !effect.runId) return null;
  const p = effectPayloads['provider.turn.start'].parse(effect.payload);
  const runId = effect.runId;
  const plan = planFor(runtime, effect, p.reason, runId);
  if (!plan) return null;
  const store = runtime.store;
  const attemptId = p.attemptId;
  const recorded = store.projections
    .list('turn_items', effect.threadId)
    .find((i) => i.data.contextSeed === true && i.data.attemptId === attemptId);
  if (recorded)
    return {
      text: recorded.text,
      context: {
        strategy: recorded.data.strategy === 'delta' ? 'delta' : 'full',
        text: recorded.text,
        coveredRunOrdinals: recorded.data.coveredRunOrdinals as number[],
        omittedItems: Number(recorded.data.omittedItems),
        chars: recorded.text.length,
      },
      portableFork: plan.portableFork,
    };
  const context = buildPortableContext(portableItemsOf(store, plan.fromThreadId, plan.beforeOrdinal), {
    mode: plan.mode,
    maxChars,
  });
  // A reseed with nothing to tell sends the message alone; a portable fork still starts fresh.
  if (context.coveredRunOrdinals.length === 0 && !plan.portableFork) return null;
  const providerThreadId = p.providerThreadId ?? null;
  const outcome = await runtime.step(effect.threadId, (thread) => {
    thread.current.addEvent({
      type: 'context.seeded',
      payload: {
        threadId: effect.threadId,
        runId,
        attemptId,
        providerThreadId,
        itemId: thread.current.newId('turnItem'),
        strategy: context.strategy,
        coveredRunOrdinals: context.coveredRunOrdinals,
        omittedItems: context.omittedItems,
        chars: context.chars,
        text: context.text,
        ...(plan.fromThreadId !== effect.threadId ? { fromThreadId: plan.fromThreadId } : {}),
      },
    });
    if (plan.portableFork && providerThreadId)
      thread.current.addEvent({
        type: 'thread.fork-resolved',
        payload: { threadId: effect.threadId, providerThreadId, strategy: 'portable_context' },
      });
    return {};
  });
  if (!outcome.ok)
    throw new BatonError(
      outcome.error.code,
      `the seed of run ${effect.runId} could not be recorded: ${outcome.error.message}`,
    );
  return { text: context.text, context, portableFork: plan.portableFork };
}

/** What the provider is sent: the seed, then the user's message. */
export const seededText = (seed: Seed | null, text: string): string => (seed?.text ? `${seed.text}\n\n${text}` : text);
