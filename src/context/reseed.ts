import type { StepContext } from '../actors/step-context.js';
import type { StepOutcome } from '../actors/step-outcome.js';
import { effectPayloads, type Effect } from '../domain/effects.js';
import type { ForkOrigin } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';
import type { ThreadId } from '../domain/ids.js';
import type { Store } from '../persistence/store.js';
import { buildPortableContext, type PortableContext, type PortableItem } from './portable-context.js';
import { seedPlansFor, type SeedPlan } from './seed-plans.js';

/**
 * The seed of a provider thread that lacks what it must answer from, given with the user's
 * message as Baton's own account, each part recorded as a ContextHandoff (its text a
 * `context.seeded` item) before the provider sees it:
 * - a reseed: an attempt whose reason is `provider_recovery` (a replacement for a provider
 *   thread that could not be resumed, or one marked divergent by a rollback) is told the
 *   thread's earlier runs;
 * - a handoff: the first run on another provider (`provider_handoff`) is told the runs its
 *   provider thread lacks: all of them for a new one, those since it last took part for one
 *   it returns to (a delta);
 * - a portable fork: a fork's first run that the fork policy does not resolve natively is
 *   told the source thread's runs up to the fork point, and starts a fresh provider thread;
 * - a merge-back: the next run after `thread.merge_back` is told the fork's own runs.
 * A transfer behind a part is materialized by its handoff and consumed by the run.
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
  /** Every part's text, in order: what goes before the user's message. */
  text: string;
  parts: PortableContext[];
  /** The seed stands in for a native fork: the turn starts a fresh provider thread, not a fork of the source's. */
  portableFork: boolean;
}

const scopeOf = (plan: SeedPlan): string | undefined =>
  plan.label === 'merge_back'
    ? `work done in the fork thread ${plan.fromThreadId}, merged back into this thread`
    : undefined;

/**
 * For a `provider.turn.start` that needs one: builds each part and records it (with, for a
 * portable fork, its resolution); the same seed is reused if the effect runs again. Null
 * for any other effect, or when there is nothing to tell.
 */
export async function reseedFor(runtime: ReseedHost, effect: Effect, maxChars: number): Promise<Seed | null> {
  const plans = seedPlansFor(runtime.store, effect, (t, f) => runtime.forkStrategy(t, f));
  if (plans.length === 0 || !effect.runId) return null;
  const runId = effect.runId;
  const p = effectPayloads['provider.turn.start'].parse(effect.payload);
  const portableFork = plans.some((x) => x.portableFork);
  const recorded = recordedParts(runtime.store, effect.threadId, p.attemptId);
  if (recorded.length) return seedOf(recorded, portableFork);
  const built = plans.map((plan) => ({
    plan,
    context: buildPortableContext(portableItemsOf(runtime.store, plan.fromThreadId, plan.beforeOrdinal), {
      mode: plan.mode,
      maxChars,
      ...(scopeOf(plan) ? { scope: scopeOf(plan)! } : {}),
    }),
  }));
  // A part with nothing to tell is left out (its transfer is moot); a portable fork still starts fresh.
  const told = built.filter((b) => b.context.coveredRunOrdinals.length > 0 || b.plan.portableFork);
  const moot = built.flatMap((b) => (!told.includes(b) && b.plan.transferId ? [b.plan.transferId] : []));
  // Nothing to tell and no transfer to settle: no step at all.
  if (told.length === 0 && moot.length === 0) return null;
  const providerThreadId = p.providerThreadId ?? null;
  await recordOrThrow(runtime, effect, (thread) => {
    for (const id of moot)
      thread.deliver({ kind: 'context_transfer', id }, { type: 'SUPERSEDE', reason: 'no run to hand over' });
    for (const { plan, context } of told) {
      const handoffId = thread.current.newId('contextHandoff');
      // The handoff records the text (its `context.seeded`); the transfer it materializes is consumed by this run.
      thread.spawn('context_handoff', handoffId, {
        handoffId,
        threadId: effect.threadId,
        transferId: plan.transferId,
        strategy: context.strategy,
        text: context.text,
        fromThreadId: plan.fromThreadId,
        coveredRunOrdinals: context.coveredRunOrdinals,
        omittedItems: context.omittedItems,
        providerThreadId,
        runId,
        attemptId: p.attemptId,
        itemId: thread.current.newId('turnItem'),
      });
      if (plan.transferId) {
        thread.deliver({ kind: 'context_transfer', id: plan.transferId }, { type: 'MATERIALIZED', handoffId });
        thread.deliver({ kind: 'context_transfer', id: plan.transferId }, { type: 'CONSUMED', runId });
      }
    }
    if (portableFork && providerThreadId)
      thread.current.addEvent({
        type: 'thread.fork-resolved',
        payload: { threadId: effect.threadId, providerThreadId, strategy: 'portable_context' },
      });
  });
  if (told.length === 0) return null;
  return seedOf(
    told.map((b) => b.context),
    portableFork,
  );
}

function seedOf(parts: PortableContext[], portableFork: boolean): Seed {
  return { text: parts.map((x) => x.text).join('\n\n'), parts, portableFork };
}

/** The parts already recorded for this attempt (the effect runs again after a crash), in order. */
function recordedParts(store: Store, threadId: string, attemptId: string): PortableContext[] {
  return store.projections
    .list('turn_items', threadId)
    .filter((i) => i.data.contextSeed === true && i.data.attemptId === attemptId)
    .map((i) => ({
      strategy: i.data.strategy === 'delta' ? 'delta' : 'full',
      text: i.text,
      coveredRunOrdinals: i.data.coveredRunOrdinals as number[],
      omittedItems: Number(i.data.omittedItems),
      chars: i.text.length,
    }));
}

/** Runs `work` as one step of the effect's thread; a step that fails is a typed error. */
async function recordOrThrow(runtime: ReseedHost, effect: Effect, work: (thread: StepContext) => void): Promise<void> {
  const outcome = await runtime.step(effect.threadId, (thread) => {
    work(thread);
    return {};
  });
  if (!outcome.ok)
    throw new BatonError(
      outcome.error.code,
      `the seed of run ${effect.runId} could not be recorded: ${outcome.error.message}`,
    );
}

/** What the provider is sent: the seed, then the user's message. */
export const seededText = (seed: Seed | null, text: string): string => (seed?.text ? `${seed.text}\n\n${text}` : text);
