import { assign, emit, enqueueActions, setup } from 'xstate';
import type { ApprovalDecision, ProviderKind, RuntimeRequestKind, RuntimeRequestStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';

/**
 * RuntimeRequest: a provider callback waiting for the user (an approval, a question).
 * An answer makes it `answering`; it is `resolved` only once the provider took the answer
 * (its respond effect succeeded), and `cancelled` with the reason if that failed. Once the
 * provider callback behind it is gone (the session died, Baton restarted) or its run
 * ended, it ends `cancelled` with the reason; a callback that was lost is recorded
 * (`not_resumable`), so answering it afterwards is refused as such.
 */
export const RUNTIME_REQUEST_MACHINE_VERSION = 3;

export interface RuntimeRequestInput {
  requestId: string;
  threadId: string;
  runId: string;
  nodeId: string;
  /** Whose callback it is (its run's provider): the answer goes back to that provider alone. */
  provider: ProviderKind;
  kind: RuntimeRequestKind;
  prompt: string;
  details: Record<string, unknown>;
  providerSessionId: string;
  /** When an unanswered request expires; null waits for ever. Time arrives as data. */
  expiresAt: number | null;
}

type Answers = Record<string, string | string[]>;

export interface RuntimeRequestContext extends RuntimeRequestInput {
  status: RuntimeRequestStatus;
  notResumableReason: string | null;
  /** The user's answer while the provider has not taken it yet. */
  answer: { decision: ApprovalDecision | null; answers: Answers | null } | null;
}

export type RuntimeRequestEvent =
  | { type: 'RESPOND'; decision: ApprovalDecision | null; answers: Answers | null }
  /** The respond effect reports: the provider took the answer, or could not. */
  | { type: 'ANSWER_DELIVERED' }
  | { type: 'ANSWER_FAILED'; reason: string }
  | { type: 'CALLBACK_LOST'; reason: string }
  | { type: 'EXPIRE'; reason: string }
  | { type: 'CANCEL'; reason: string };

const ids = (c: RuntimeRequestContext) => ({ threadId: c.threadId as never, requestId: c.requestId as never });

export const runtimeRequestMachine = setup({
  types: { context: {} as RuntimeRequestContext, events: {} as RuntimeRequestEvent, input: {} as RuntimeRequestInput, emitted: {} as MachineOutput },
  actions: {
    cancel: emit(({ context }, params: { reason: string }) => domain('runtime-request.cancelled', { ...ids(context), reason: params.reason })),
    /** Tells the run and the request's node that the request is closed. */
    close: enqueueActions(({ context, enqueue }, params: { status: RuntimeRequestStatus }) => {
      enqueue.assign({ status: params.status });
      // An answer cancelled the expiry already (see `answering`).
      if (context.expiresAt !== null && params.status !== 'expired' && context.status === 'pending') enqueue.emit({ type: 'timer', op: 'cancel', key: 'expire' });
      enqueue.emit({ type: 'send', to: { kind: 'run', id: context.runId }, event: { type: 'REQUEST_CLOSED', requestId: context.requestId } });
      enqueue.emit({ type: 'send', to: { kind: 'execution_node', id: context.nodeId }, event: { type: 'END', status: params.status === 'resolved' ? 'completed' : 'cancelled' } });
    }),
  },
}).createMachine({
  id: 'runtimeRequest',
  context: ({ input }) => ({ ...input, status: 'pending', notResumableReason: null, answer: null }),
  entry: [
    emit(({ context }) =>
      domain('runtime-request.opened', {
        request: {
          id: context.requestId as never,
          threadId: context.threadId as never,
          runId: context.runId as never,
          nodeId: context.nodeId as never,
          kind: context.kind,
          status: 'pending',
          responseCapability: { type: 'live', providerSessionId: context.providerSessionId as never },
          prompt: context.prompt,
          details: context.details,
        },
      }),
    ),
    emit(({ context }) => ({ type: 'send' as const, to: { kind: 'run' as const, id: context.runId }, event: { type: 'REQUEST_OPENED', requestId: context.requestId } })),
    enqueueActions(({ context, enqueue }) => {
      if (context.expiresAt !== null) enqueue.emit({ type: 'timer', op: 'schedule', key: 'expire', dueAt: context.expiresAt, event: { type: 'EXPIRE', reason: 'no answer in time' } });
    }),
  ],
  initial: 'pending',
  states: {
    pending: {
      entry: assign({ status: 'pending' }),
      on: {
        RESPOND: {
          target: 'answering',
          actions: [
            assign({ answer: ({ event }) => ({ decision: event.decision, answers: event.answers }) }),
            emit(({ context, event }) => ({
              type: 'effect' as const,
              effect: { kind: 'provider.runtime-request.respond' as const, provider: context.provider, runId: context.runId, nodeId: context.nodeId, payload: { requestId: context.requestId, providerSessionId: context.providerSessionId, decision: event.decision, answers: event.answers } },
            })),
            emit(({ context, event }) => domain('runtime-request.answering', { ...ids(context), decision: event.decision, answers: event.answers })),
          ],
        },
        EXPIRE: { target: 'expired', actions: emit(({ context, event }) => domain('runtime-request.expired', { ...ids(context), reason: event.reason })) },
      },
    },
    // The user answered: no expiry any more, the answer is on its way.
    answering: {
      entry: [
        assign({ status: 'answering' }),
        enqueueActions(({ context, enqueue }) => {
          if (context.expiresAt !== null) enqueue.emit({ type: 'timer', op: 'cancel', key: 'expire' });
        }),
      ],
      on: {
        ANSWER_DELIVERED: {
          target: 'resolved',
          actions: emit(({ context }) => domain('runtime-request.resolved', { ...ids(context), decision: context.answer?.decision ?? null, answers: context.answer?.answers ?? null })),
        },
        ANSWER_FAILED: { target: 'cancelled', actions: { type: 'cancel', params: ({ event }) => ({ reason: `the provider did not take the answer: ${event.reason}` }) } },
      },
    },
    resolved: { type: 'final', entry: { type: 'close', params: { status: 'resolved' } } },
    expired: { type: 'final', entry: { type: 'close', params: { status: 'expired' } } },
    cancelled: { type: 'final', entry: { type: 'close', params: { status: 'cancelled' } } },
  },
  on: {
    CALLBACK_LOST: {
      target: '.cancelled',
      actions: [
        assign({ notResumableReason: ({ event }) => event.reason }),
        emit(({ context, event }) => domain('runtime-request.capability-changed', { ...ids(context), responseCapability: { type: 'not_resumable', reason: event.reason } })),
        { type: 'cancel', params: ({ event }) => ({ reason: event.reason }) },
      ],
    },
    CANCEL: { target: '.cancelled', actions: { type: 'cancel', params: ({ event }) => ({ reason: event.reason }) } },
  },
});
