import { assign, emit, enqueueActions, setup } from 'xstate';
import type { ContextHandoffId, RunId } from '../domain/ids.js';
import type { ContextTransferStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';
import type { ContextTransferEvent, ContextTransferInput } from './entity-messages.js';
import { changeStatusWithReason, terminalTag, type EntityTag } from './status-actions.js';

/**
 * ContextTransfer: context a provider thread must be given because it does not hold it,
 * from the moment Baton knows it is owed to the run that carries it. A fork records one
 * when it is made, a provider switch when it is asked for; each is `pending` until the
 * next run starts. A native fork resolves it with no text (`resolved_native`); otherwise
 * it is `materialized` into a ContextHandoff (the exact text) and `consumed` by the run
 * whose first prompt carries it. A rollback of a run it covered, a newer switch before
 * any run, or a run that needed nothing makes it `superseded`. Pure: ids come with events.
 */
export const CONTEXT_TRANSFER_MACHINE_VERSION = 1;

export type { ContextTransferEvent, ContextTransferInput };

export interface ContextTransferContext extends ContextTransferInput {
  status: ContextTransferStatus;
  reason: string | null;
  handoffId: ContextHandoffId | null;
  consumedByRunId: RunId | null;
}

const view = (c: ContextTransferContext) => ({
  id: c.transferId,
  threadId: c.threadId,
  kind: c.kind,
  status: c.status,
  sourcePoint: {
    threadId: c.sourceThreadId,
    runId: c.sourceRunId,
    runOrdinal: c.sourceRunOrdinal,
    nodeId: null,
    checkpointId: null,
  },
  basePoint: c.basePoint
    ? {
        threadId: c.threadId,
        runId: c.basePoint.runId,
        runOrdinal: c.basePoint.runOrdinal,
        nodeId: null,
        checkpointId: null,
      }
    : null,
  fromProvider: c.fromProvider,
  toProvider: c.toProvider,
  handoffId: c.handoffId,
  consumedByRunId: c.consumedByRunId,
  reason: c.reason,
});

export const contextTransferMachine = setup({
  types: {
    context: {} as ContextTransferContext,
    events: {} as ContextTransferEvent,
    input: {} as ContextTransferInput,
    emitted: {} as MachineOutput,
    tags: {} as EntityTag,
  },
  actions: {
    setStatus: enqueueActions(
      changeStatusWithReason<ContextTransferContext, ContextTransferStatus>(
        (context, { to, reason }) =>
          domain('context-transfer.status-changed', {
            threadId: context.threadId,
            transferId: context.transferId,
            to,
            reason,
            handoffId: context.handoffId,
            runId: context.consumedByRunId,
          }),
        { reasonCounts: false },
      ),
    ),
    announce: emit(({ context }) => domain('context-transfer.recorded', { transfer: view(context) })),
    keepHandoff: assign(({ event }) => (event.type === 'MATERIALIZED' ? { handoffId: event.handoffId } : {})),
    keepConsumer: assign(({ event }) => (event.type === 'CONSUMED' ? { consumedByRunId: event.runId } : {})),
  },
}).createMachine({
  id: 'contextTransfer',
  context: ({ input }) => ({ ...input, status: 'pending', reason: null, handoffId: null, consumedByRunId: null }),
  entry: 'announce',
  initial: 'pending',
  states: {
    pending: {
      on: {
        MATERIALIZED: { target: 'materialized', actions: 'keepHandoff' },
        RESOLVED_NATIVE: 'resolved_native',
        SUPERSEDE: 'superseded',
      },
    },
    materialized: {
      entry: { type: 'setStatus', params: { to: 'materialized' } },
      on: { CONSUMED: { target: 'consumed', actions: 'keepConsumer' }, SUPERSEDE: 'superseded' },
    },
    // A consumed transfer is over unless a rollback takes back a run it covered.
    consumed: {
      tags: [terminalTag],
      entry: { type: 'setStatus', params: { to: 'consumed' } },
      on: { SUPERSEDE: 'superseded' },
    },
    resolved_native: { type: 'final', entry: { type: 'setStatus', params: { to: 'resolved_native' } } },
    superseded: { type: 'final', entry: { type: 'setStatus', params: { to: 'superseded' } } },
  },
});
