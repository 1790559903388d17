import { z } from 'zod';
import { effectPayloads, type Effect } from '../domain/effects.js';
import { ForkOrigin } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';
import { ContextTransferId, ThreadId } from '../domain/ids.js';
import type { Store } from '../persistence/store.js';
import type { PortableMode } from './portable-context.js';

/**
 * What a turn start must be told beside the user's message, one plan per account (see
 * reseed.ts for how each is built and recorded). Read from the effect's payload, which the
 * run wrote when it started: its attempt's reason, a fork's origin, a switch's handoff,
 * the merge-backs waiting for it.
 */

/** Whose runs a seed tells, up to which run, and whether it replaces a native fork. */
export interface SeedPlan {
  /** The transfer the seed materializes (a switch's, a fork's, a merge-back's), when there is one. */
  transferId: ContextTransferId | null;
  fromThreadId: ThreadId;
  beforeOrdinal: number;
  /** All of those runs, or (a handoff back to a provider thread) only those after one it already holds. */
  mode: PortableMode;
  portableFork: boolean;
  /** What the account is, for the text's reader (the provider). */
  label: 'history' | 'merge_back';
}

/** The fork policy, as the planner needs it. */
export type ForkStrategyOf = (threadId: string, fork: ForkOrigin) => 'native_fork' | 'portable_context';

const Handoff = z.object({ sinceOrdinal: z.number().int().nonnegative() });
/** A fork's work waiting to be told to its parent (recorded by `thread.merge_back`). */
export const MergeBackPlan = z.object({
  transferId: ContextTransferId,
  fromThreadId: ThreadId,
  throughOrdinal: z.number().int().positive(),
});
export type MergeBackPlan = z.infer<typeof MergeBackPlan>;

/** Every account the turn start needs: its history (a reseed, a handoff or a portable fork), then merge-backs. */
export function seedPlansFor(store: Store, effect: Effect, forkStrategy: ForkStrategyOf): SeedPlan[] {
  if (effect.kind !== 'provider.turn.start' || !effect.runId) return [];
  const p = effectPayloads['provider.turn.start'].parse(effect.payload);
  const history = historyPlan(store, effect, p.reason, effect.runId, forkStrategy);
  const merges = z.array(MergeBackPlan).optional().safeParse(effect.payload.mergeBacks);
  if (!merges.success)
    throw new BatonError('invalid_payload', `a turn start with unreadable merge-backs: ${merges.error.message}`);
  return [
    ...(history ? [history] : []),
    ...(merges.data ?? []).map((m): SeedPlan => ({
      transferId: m.transferId,
      fromThreadId: m.fromThreadId,
      beforeOrdinal: m.throughOrdinal + 1,
      mode: { type: 'full' },
      portableFork: false,
      label: 'merge_back',
    })),
  ];
}

function historyPlan(
  store: Store,
  effect: Effect,
  reason: unknown,
  runId: string,
  forkStrategy: ForkStrategyOf,
): SeedPlan | null {
  if (reason === 'provider_recovery' || reason === 'provider_handoff') {
    const ordinal = store.projections.get('runs', runId)?.ordinal;
    if (!ordinal) throw new BatonError('not_found', `run ${runId} has not started`);
    const handoff = reason === 'provider_handoff' ? Handoff.safeParse(effect.payload.handoff) : null;
    if (handoff && !handoff.success)
      throw new BatonError('invalid_payload', `a handoff turn start without its handoff: ${handoff.error.message}`);
    const since = handoff?.data?.sinceOrdinal ?? 0;
    const transfer = reason === 'provider_handoff' ? ContextTransferId.safeParse(effect.payload.transferId) : null;
    return {
      transferId: transfer?.success ? transfer.data : null,
      fromThreadId: effect.threadId,
      beforeOrdinal: ordinal,
      mode: since > 0 ? { type: 'delta', sinceRunOrdinal: since } : { type: 'full' },
      portableFork: false,
      label: 'history',
    };
  }
  const fork = ForkOrigin.nullable().optional().safeParse(effect.payload.fork);
  if (!fork.success)
    throw new BatonError('invalid_payload', `a turn start with an unreadable fork origin: ${fork.error.message}`);
  // A subagent's fork is native only (refused at the command otherwise): a portable one would tell the parent's runs.
  if (!fork.data || fork.data.sourceNativeThreadRef || forkStrategy(effect.threadId, fork.data) === 'native_fork')
    return null;
  const sourceOrdinal = store.projections.get('runs', fork.data.sourceRunId)?.ordinal;
  if (!sourceOrdinal) throw new BatonError('not_found', `the fork's source run ${fork.data.sourceRunId} is gone`);
  return {
    transferId: fork.data.transferId ?? null,
    fromThreadId: fork.data.sourceThreadId,
    beforeOrdinal: sourceOrdinal + 1,
    mode: { type: 'full' },
    portableFork: true,
    label: 'history',
  };
}
