import { emit, enqueueActions, setup } from 'xstate';
import type { ContextHandoffStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';
import type { ContextHandoffEvent, ContextHandoffInput } from './entity-messages.js';
import { changeStatusWithReason, type EntityTag } from './status-actions.js';

/**
 * ContextHandoff: the exact text Baton gave a provider thread in place of history it does
 * not hold (a provider switch, a portable fork, the reseed of a broken or divergent provider
 * thread), built by the portable context builder: its strategy, the runs and items it
 * covers, its size, and the run whose first prompt carried it. It is `delivered` with that
 * run's turn start; a rollback of a run it covered makes it `superseded` (the provider thread
 * it went to is replaced or rolled back with it). Pure.
 */
export const CONTEXT_HANDOFF_MACHINE_VERSION = 1;

export type { ContextHandoffEvent, ContextHandoffInput };

export interface ContextHandoffContext extends ContextHandoffInput {
  status: ContextHandoffStatus;
  reason: string | null;
}

export const contextHandoffMachine = setup({
  types: {
    context: {} as ContextHandoffContext,
    events: {} as ContextHandoffEvent,
    input: {} as ContextHandoffInput,
    emitted: {} as MachineOutput,
    tags: {} as EntityTag,
  },
  actions: {
    setStatus: enqueueActions(
      changeStatusWithReason<ContextHandoffContext, ContextHandoffStatus>(
        (context, { to, reason }) =>
          domain('context-handoff.status-changed', {
            threadId: context.threadId,
            handoffId: context.handoffId,
            to,
            reason,
          }),
        { reasonCounts: false },
      ),
    ),
    // The text goes to the thread's conversation as Baton's own item, auditable, never hidden.
    announce: emit(({ context }) =>
      domain('context.seeded', {
        threadId: context.threadId,
        runId: context.runId,
        attemptId: context.attemptId,
        providerThreadId: context.providerThreadId,
        itemId: context.itemId,
        strategy: context.strategy,
        coveredRunOrdinals: context.coveredRunOrdinals,
        omittedItems: context.omittedItems,
        chars: context.text.length,
        text: context.text,
        ...(context.fromThreadId !== context.threadId ? { fromThreadId: context.fromThreadId } : {}),
        handoffId: context.handoffId,
        transferId: context.transferId,
      }),
    ),
  },
}).createMachine({
  id: 'contextHandoff',
  context: ({ input }) => ({ ...input, status: 'delivered', reason: null }),
  entry: 'announce',
  initial: 'delivered',
  states: {
    delivered: { on: { SUPERSEDE: 'superseded' } },
    superseded: { type: 'final', entry: { type: 'setStatus', params: { to: 'superseded' } } },
  },
});
