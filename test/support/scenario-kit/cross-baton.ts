import type { DomainEvent } from '../../../src/domain/events.js';
import type { Harness } from '../runtime.js';
import { status } from './baton.js';
import { onProvider, type CrossProvider } from './cross-scenario.js';
import { check } from './scenario.js';

/** What cross scenarios read of Baton's store: the handoffs, the transfers, the provider threads. */

type EventOf<T extends DomainEvent['type']> = Extract<DomainEvent, { type: T }>;

/** The thread's events of one type, in order. */
export const eventsOf = <T extends DomainEvent['type']>(h: Harness, threadId: string, type: T): EventOf<T>[] =>
  h.store.events.readThreadAfter(threadId, 0).filter((e): e is EventOf<T> => e.type === type);

/** What the thread's runs were told in place of history (`context.seeded`), in order. */
export const seedsOf = (h: Harness, threadId: string) => eventsOf(h, threadId, 'context.seeded').map((e) => e.payload);

/** The thread's context transfers as they stand now. */
export const transfersOf = (h: Harness, threadId: string) => h.store.projections.list('context_transfers', threadId);

/** Sends a message (onto `provider`, a switch, when given) and waits for its run to complete. */
export async function completed(
  h: Harness,
  threadId: string,
  text: string,
  fields: { provider?: CrossProvider; mergeBackFromThreadId?: string } = {},
): Promise<string> {
  const { provider, ...rest } = fields;
  const runId = await h.send(threadId, text, { ...(provider ? onProvider(provider) : {}), ...rest });
  await h.until(() => status(h, runId) === 'completed' || status(h, runId) === 'failed');
  const run = h.store.projections.get('runs', runId)!;
  check(
    run.status === 'completed',
    `run ${runId} (${text}) completed, got ${run.status}: ${JSON.stringify(run.error)}`,
  );
  return runId;
}

/** The Baton provider thread a run ran on. */
export const providerThreadOf = (h: Harness, runId: string): string | null =>
  h.store.projections.get('runs', runId)?.providerThreadId ?? null;

/** The native threads the provider thread was bound to, each once (one: it was never replaced). */
export const nativeRefsOf = (h: Harness, threadId: string, providerThreadId: string): string[] => [
  ...new Set(
    eventsOf(h, threadId, 'provider-thread.bound').flatMap((e) =>
      e.payload.providerThread.id === providerThreadId && e.payload.providerThread.nativeThreadRef
        ? [e.payload.providerThread.nativeThreadRef]
        : [],
    ),
  ),
];

/**
 * Every transfer of the thread consumed, each by the run whose handoff carried it: the
 * expected [kind, from, to, consuming run] in order.
 */
export function checkTransfersConsumed(
  h: Harness,
  threadId: string,
  expected: [kind: string, from: string | null, to: string | null, runId: string][],
): void {
  const transfers = transfersOf(h, threadId);
  const got = transfers.map((t) => [t.kind, t.fromProvider, t.toProvider, t.consumedByRunId]);
  check(
    JSON.stringify(got) === JSON.stringify(expected),
    `transfers ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`,
  );
  const seeds = seedsOf(h, threadId);
  for (const t of transfers) {
    check(t.status === 'consumed', `transfer ${t.id} consumed, got ${t.status}`);
    const seed = seeds.find((s) => s.runId === t.consumedByRunId);
    check(
      seed?.transferId === t.id && seed.handoffId === t.handoffId,
      `the seed of ${t.consumedByRunId} is transfer ${t.id}'s handoff, got ${JSON.stringify(seed)}`,
    );
    const handoff = h.store.projections.get('context_handoffs', t.handoffId ?? '');
    check(handoff?.status === 'delivered', `handoff ${t.handoffId} delivered, got ${handoff?.status}`);
  }
}

/**
 * Sends a message whose agent runs one command the runtime mode asks about, accepts it and
 * waits for the run to complete. A replayed agent runs nothing: `standIn` does to the
 * workspace what the recorded command did, while the run waits on the approval (before the
 * run's checkpoint is taken), so Baton's checkpoints hold the same files live and replayed.
 */
export async function completedApproving(
  h: Harness,
  threadId: string,
  text: string,
  options: { live: boolean; standIn(): void },
): Promise<string> {
  const runId = await h.send(threadId, text);
  const pending = () => h.store.projections.list('requests', threadId).find((r) => r.status === 'pending');
  await h.until(() => pending() !== undefined || ['completed', 'failed'].includes(status(h, runId) ?? ''));
  const request = pending();
  check(
    request?.kind === 'command',
    `the run asks to run its command, got ${JSON.stringify(request ?? status(h, runId))}`,
  );
  if (!options.live) options.standIn();
  const ack = await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' });
  check(ack.ok, `the command accepted: ${JSON.stringify(ack)}`);
  await h.until(() => ['completed', 'failed'].includes(status(h, runId) ?? ''));
  const run = h.store.projections.get('runs', runId)!;
  check(
    run.status === 'completed',
    `run ${runId} (${text}) completed, got ${run.status}: ${JSON.stringify(run.error)}`,
  );
  return runId;
}

/** Rolls the thread back to run `runOrdinal` and waits until Baton and the provider have done it; the ack's result. */
export async function rolledBack(h: Harness, threadId: string, runOrdinal: number): Promise<Record<string, unknown>> {
  const before = eventsOf(h, threadId, 'thread.rolled-back').length;
  const ack = (await h.command({ type: 'rollback.toRun', threadId, runOrdinal })) as {
    ok: boolean;
    result?: Record<string, unknown>;
  };
  check(ack.ok && ack.result, `rolled back to run ${runOrdinal}: ${JSON.stringify(ack)}`);
  await h.until(() => eventsOf(h, threadId, 'thread.rolled-back').length > before);
  // The provider's own rollback done first: what comes next reads a settled thread.
  await h.until(() =>
    h.store.outbox
      .list({ threadId })
      .filter((e) => e.kind === 'provider.thread.rollback')
      .every((e) => e.status === 'completed'),
  );
  return ack.result;
}
