import { assign, emit, enqueueActions, setup } from 'xstate';
import type { ApprovalDecision, RuntimeRequestStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';
import type { RuntimeRequestInput, RuntimeRequestEvent, Answers } from './entity-messages.js';

/**
 * RuntimeRequest: a provider callback waiting for the user (an approval, a question).
 * An answer makes it `answering`; it is `resolved` only once the provider took the answer
 * (its respond effect succeeded), and `cancelled` with the reason if that failed. Once the
 * provider callback behind it is gone (the session died, Baton restarted) or its run
 * ended, it ends `cancelled` with the reason; a callback that was lost is recorded
 * (`not_resumable`), so answering it afterwards is refused as such. A request of work that
 * outlives its run (`outlivesRun`: a background subagent's) is not its run's: it stays open
 * after the run ends, until it is answered or its provider withdraws it; a request becomes one
 * (`OUTLIVE_RUN`) when its asker moves to the background, and its run stops waiting on it.
 */
export const RUNTIME_REQUEST_MACHINE_VERSION = 3;

export type { RuntimeRequestInput, RuntimeRequestEvent };

export interface RuntimeRequestContext extends RuntimeRequestInput {
  status: RuntimeRequestStatus;
  notResumableReason: string | null;
  /** The user's answer while the provider has not taken it yet. */
  answer: { decision: ApprovalDecision | null; answers: Answers | null } | null;
}

const ids = (c: RuntimeRequestContext) => ({ threadId: c.threadId, requestId: c.requestId });

export const runtimeRequestMachine = setup({
  types: {
    context: {} as RuntimeRequestContext,
    events: {} as RuntimeRequestEvent,
    input: {} as RuntimeRequestInput,
    emitted: {} as MachineOutput,
  },
  actions: {
    /** Opened: the read models show it, and its run waits on it. */
    announce: enqueueActions(({ context, enqueue }) => {
      enqueue.emit(
        domain('runtime-request.opened', {
          request: {
            id: context.requestId,
            threadId: context.threadId,
            runId: context.runId,
            nodeId: context.nodeId,
            kind: context.kind,
            status: 'pending',
            responseCapability: { type: 'live', providerSessionId: context.providerSessionId },
            prompt: context.prompt,
            details: context.details,
          },
        }),
      );
      // Work that outlives its run (a background subagent) asks on its own: its run neither waits on it nor ends it.
      if (!context.outlivesRun)
        enqueue.emit({
          type: 'send',
          to: { kind: 'run', id: context.runId },
          event: { type: 'REQUEST_OPENED', requestId: context.requestId },
        });
    }),
    scheduleExpiry: enqueueActions(({ context, enqueue }) => {
      if (context.expiresAt !== null)
        enqueue.emit({
          type: 'timer',
          op: 'schedule',
          key: 'expire',
          dueAt: context.expiresAt,
          event: { type: 'EXPIRE', reason: 'no answer in time' },
        });
    }),
    markPending: assign({ status: 'pending' as const }),
    /** Its asker moved to the background: the run no longer waits on it, nor ends it. */
    outliveRun: enqueueActions(({ context, enqueue }) => {
      if (context.outlivesRun) return;
      enqueue.assign({ outlivesRun: true });
      enqueue.emit({
        type: 'send',
        to: { kind: 'run', id: context.runId },
        event: { type: 'REQUEST_CLOSED', requestId: context.requestId },
      });
    }),
    /** The user answered: no expiry any more, the answer is on its way. */
    markAnswering: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ status: 'answering' });
      if (context.expiresAt !== null) enqueue.emit({ type: 'timer', op: 'cancel', key: 'expire' });
    }),
    /** Keeps the answer and sends it to the provider whose callback this is. */
    deliverAnswer: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'RESPOND') return;
      enqueue.assign({ answer: { decision: event.decision, answers: event.answers } });
      enqueue.emit({
        type: 'effect',
        effect: {
          kind: 'provider.runtime-request.respond',
          provider: context.provider,
          runId: context.runId,
          nodeId: context.nodeId,
          payload: {
            requestId: context.requestId,
            providerSessionId: context.providerSessionId,
            decision: event.decision,
            answers: event.answers,
            // Its run's end does not make it moot (live-work-effects.ts).
            ...(context.outlivesRun ? { outlivesRun: true } : {}),
          },
        },
      });
      enqueue.emit(
        domain('runtime-request.answering', { ...ids(context), decision: event.decision, answers: event.answers }),
      );
    }),
    recordExpiry: emit(({ context }, params: { reason: string }) =>
      domain('runtime-request.expired', { ...ids(context), reason: params.reason }),
    ),
    recordResolved: emit(({ context }) =>
      domain('runtime-request.resolved', {
        ...ids(context),
        decision: context.answer?.decision ?? null,
        answers: context.answer?.answers ?? null,
      }),
    ),
    /** The provider callback is gone: the request can never be answered, and says why. */
    recordCallbackLost: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'CALLBACK_LOST') return;
      enqueue.assign({ notResumableReason: event.reason });
      enqueue.emit(
        domain('runtime-request.capability-changed', {
          ...ids(context),
          responseCapability: { type: 'not_resumable', reason: event.reason },
        }),
      );
    }),
    cancel: emit(({ context }, params: { reason: string }) =>
      domain('runtime-request.cancelled', { ...ids(context), reason: params.reason }),
    ),
    /** Tells the run and the request's node that the request is closed. */
    close: enqueueActions(({ context, enqueue }, params: { status: RuntimeRequestStatus }) => {
      enqueue.assign({ status: params.status });
      // An answer cancelled the expiry already (see `answering`).
      if (context.expiresAt !== null && params.status !== 'expired' && context.status === 'pending')
        enqueue.emit({ type: 'timer', op: 'cancel', key: 'expire' });
      if (!context.outlivesRun)
        enqueue.emit({
          type: 'send',
          to: { kind: 'run', id: context.runId },
          event: { type: 'REQUEST_CLOSED', requestId: context.requestId },
        });
      enqueue.emit({
        type: 'send',
        to: { kind: 'execution_node', id: context.nodeId },
        event: { type: 'END', status: params.status === 'resolved' ? 'completed' : 'cancelled' },
      });
    }),
  },
}).createMachine({
  id: 'runtimeRequest',
  context: ({ input }) => ({ ...input, status: 'pending', notResumableReason: null, answer: null }),
  entry: ['announce', 'scheduleExpiry'],
  initial: 'pending',
  states: {
    pending: {
      entry: 'markPending',
      on: {
        RESPOND: { target: 'answering', actions: 'deliverAnswer' },
        OUTLIVE_RUN: { actions: 'outliveRun' },
        EXPIRE: {
          target: 'expired',
          actions: { type: 'recordExpiry', params: ({ event }) => ({ reason: event.reason }) },
        },
      },
    },
    answering: {
      entry: 'markAnswering',
      on: {
        ANSWER_DELIVERED: { target: 'resolved', actions: 'recordResolved' },
        ANSWER_FAILED: {
          target: 'cancelled',
          actions: {
            type: 'cancel',
            params: ({ event }) => ({ reason: `the provider did not take the answer: ${event.reason}` }),
          },
        },
      },
    },
    resolved: { type: 'final', entry: { type: 'close', params: { status: 'resolved' } } },
    expired: { type: 'final', entry: { type: 'close', params: { status: 'expired' } } },
    cancelled: { type: 'final', entry: { type: 'close', params: { status: 'cancelled' } } },
  },
  on: {
    CALLBACK_LOST: {
      target: '.cancelled',
      actions: ['recordCallbackLost', { type: 'cancel', params: ({ event }) => ({ reason: event.reason }) }],
    },
    CANCEL: { target: '.cancelled', actions: { type: 'cancel', params: ({ event }) => ({ reason: event.reason }) } },
  },
});
