import type { DomainEvent, EventType } from '../domain/events.js';
import type { ProjectionOverlay } from './overlay.js';

/**
 * The context transfer and handoff read models: what each provider thread was owed and
 * exactly what it was told (a handoff's text, strategy, the runs it covers, its size, the
 * run that carried it), kept per thread for the thread snapshot. Pure like the projector.
 */
type Projected<K extends EventType> = Pick<DomainEvent<K>, 'type' | 'payload' | 'threadId' | 'at'>;
type Handler<K extends EventType> = (e: Projected<K>, view: ProjectionOverlay) => void;

export const contextTransferHandlers: { [K in EventType]?: Handler<K> } = {
  'context-transfer.recorded': ({ payload: { transfer } }, view) =>
    view.put('context_transfers', transfer.id, transfer.threadId, transfer),
  'context-transfer.status-changed': ({ payload: p }, view) => {
    const t = view.get('context_transfers', p.transferId);
    if (!t) return;
    view.put('context_transfers', t.id, t.threadId, {
      ...t,
      status: p.to,
      reason: p.reason,
      handoffId: p.handoffId ?? t.handoffId,
      consumedByRunId: p.runId ?? t.consumedByRunId,
    });
  },
  'context-handoff.status-changed': ({ payload: p }, view) => {
    const h = view.get('context_handoffs', p.handoffId);
    if (h) view.put('context_handoffs', h.id, h.threadId, { ...h, status: p.to, reason: p.reason });
  },
};

/** A seed recorded by a ContextHandoff (one stored before handoffs existed has none): its row. */
export function projectHandoff({ payload: p }: Projected<'context.seeded'>, view: ProjectionOverlay): void {
  if (!p.handoffId) return;
  view.put('context_handoffs', p.handoffId, p.threadId, {
    id: p.handoffId,
    threadId: p.threadId,
    transferId: p.transferId ?? null,
    strategy: p.strategy,
    status: 'delivered',
    text: p.text,
    fromThreadId: p.fromThreadId ?? p.threadId,
    coveredRunOrdinals: p.coveredRunOrdinals,
    omittedItems: p.omittedItems,
    chars: p.chars,
    toProviderThreadId: p.providerThreadId,
    runId: p.runId,
    attemptId: p.attemptId,
    reason: null,
  });
  const run = view.get('runs', p.runId);
  if (run) view.put('runs', run.id, run.threadId, { ...run, contextHandoffId: p.handoffId });
}
