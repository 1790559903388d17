import type { StepContext } from '../actors/step-context.js';
import type { StepOutcome } from '../actors/step-outcome.js';
import { effectPayloads, type Effect } from '../domain/effects.js';
import { BatonError } from '../domain/errors.js';
import type { ThreadId } from '../domain/ids.js';
import type { Store } from '../persistence/store.js';
import { buildPortableContext, type PortableContext, type PortableItem } from './portable-context.js';

/**
 * The reseed of a provider thread that lacks the thread's history (a replacement for one
 * that could not be resumed, or one marked divergent by a rollback): an attempt whose
 * reason is `provider_recovery` is given Baton's own account of the earlier runs with the
 * user's message. The account is recorded (`context.seeded`) before the provider sees it.
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

/** What a reseed needs of the runtime: the read model, and a step to record the seed in. */
export interface ReseedHost {
  readonly store: Store;
  step<T extends Record<string, unknown>>(threadId: ThreadId, work: (ctx: StepContext) => T): Promise<StepOutcome<T>>;
}

export interface Seed {
  text: string;
  context: PortableContext;
}

/**
 * For a `provider.turn.start` of a `provider_recovery` attempt: builds the full portable
 * context of the earlier runs and records it; the same seed is reused if the effect runs
 * again. Null for any other effect, or when there is nothing earlier to tell.
 */
export async function reseedFor(runtime: ReseedHost, effect: Effect, maxChars: number): Promise<Seed | null> {
  if (effect.kind !== 'provider.turn.start' || !effect.runId) return null;
  const p = effectPayloads['provider.turn.start'].parse(effect.payload);
  if (p.reason !== 'provider_recovery') return null;
  const store = runtime.store;
  const attemptId = p.attemptId;
  const recorded = store.projections
    .list('turn_items', effect.threadId)
    .find((i) => i.data.contextSeed === true && i.data.attemptId === attemptId);
  if (recorded)
    return {
      text: recorded.text,
      context: {
        strategy: 'full',
        text: recorded.text,
        coveredRunOrdinals: recorded.data.coveredRunOrdinals as number[],
        omittedItems: Number(recorded.data.omittedItems),
        chars: recorded.text.length,
      },
    };
  const runId = effect.runId;
  const ordinal = store.projections.get('runs', runId)?.ordinal;
  if (!ordinal) throw new BatonError('not_found', `run ${effect.runId} has not started`);
  const context = buildPortableContext(portableItemsOf(store, effect.threadId, ordinal), {
    mode: { type: 'full' },
    maxChars,
  });
  if (context.coveredRunOrdinals.length === 0) return null;
  const outcome = await runtime.step(effect.threadId, (thread) => {
    thread.current.addEvent({
      type: 'context.seeded',
      payload: {
        threadId: effect.threadId,
        runId,
        attemptId,
        providerThreadId: p.providerThreadId ?? null,
        itemId: thread.current.newId('turnItem'),
        strategy: context.strategy,
        coveredRunOrdinals: context.coveredRunOrdinals,
        omittedItems: context.omittedItems,
        chars: context.chars,
        text: context.text,
      },
    });
    return {};
  });
  if (!outcome.ok)
    throw new BatonError(
      outcome.error.code,
      `the reseed of run ${effect.runId} could not be recorded: ${outcome.error.message}`,
    );
  return { text: context.text, context };
}

/** What the provider is sent: the seed, then the user's message. */
export const seededText = (seed: Seed | null, text: string): string => (seed ? `${seed.text}\n\n${text}` : text);
