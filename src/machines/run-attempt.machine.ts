import { emit, enqueueActions, setup } from 'xstate';
import type { AttemptReason, RunAttemptStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';

/**
 * RunAttempt: one provider execution of a run. A run has several when steering had to
 * interrupt and restart: the interrupted attempt is superseded, never deleted, so the
 * graph keeps it for audit. Only the root turn of this attempt ends it.
 */
export const RUN_ATTEMPT_MACHINE_VERSION = 1;

export interface RunAttemptInput {
  attemptId: string;
  runId: string;
  threadId: string;
  attemptOrdinal: number;
  rootNodeId: string;
  reason: AttemptReason;
  providerThreadId: string | null;
}

export interface RunAttemptContext extends RunAttemptInput {
  status: RunAttemptStatus;
}

type EndStatus = 'completed' | 'interrupted' | 'failed';
export type RunAttemptEvent =
  | { type: 'TURN_STARTED'; attemptId: string }
  | { type: 'TURN_TERMINAL'; attemptId: string; nodeId: string; status: EndStatus }
  | { type: 'END'; status: EndStatus }
  | { type: 'SUPERSEDE' }
  | { type: 'CANCEL' };

export const runAttemptMachine = setup({
  types: { context: {} as RunAttemptContext, events: {} as RunAttemptEvent, input: {} as RunAttemptInput, emitted: {} as MachineOutput },
  guards: {
    isOwnRootTurn: ({ context, event }) => event.type === 'TURN_TERMINAL' && event.attemptId === context.attemptId && event.nodeId === context.rootNodeId,
    isOwnStart: ({ context, event }) => event.type === 'TURN_STARTED' && event.attemptId === context.attemptId,
    endsCompleted: ({ event }) => 'status' in event && event.status === 'completed',
    endsInterrupted: ({ event }) => 'status' in event && event.status === 'interrupted',
  },
  actions: {
    setStatus: enqueueActions(({ context, enqueue }, params: { to: RunAttemptStatus }) => {
      if (context.status === params.to) return;
      enqueue.assign({ status: params.to });
      enqueue.emit(domain('attempt.status-changed', { threadId: context.threadId as never, runId: context.runId as never, attemptId: context.attemptId as never, to: params.to, reason: params.to === 'superseded' ? 'steering_restart' : null }));
    }),
  },
}).createMachine({
  id: 'runAttempt',
  context: ({ input }) => ({ ...input, status: 'pending' }),
  initial: 'pending',
  entry: emit(({ context }) =>
    domain('attempt.created', {
      threadId: context.threadId as never,
      attempt: { id: context.attemptId as never, runId: context.runId as never, attemptOrdinal: context.attemptOrdinal, rootNodeId: context.rootNodeId as never, providerThreadId: context.providerThreadId as never, providerTurnId: null, reason: context.reason, status: 'pending' },
    }),
  ),
  states: {
    pending: {
      on: {
        TURN_STARTED: { guard: 'isOwnStart', target: 'running' },
        SUPERSEDE: 'superseded',
        CANCEL: 'cancelled',
        TURN_TERMINAL: { guard: 'isOwnRootTurn', target: 'ended' },
        END: 'ended',
      },
    },
    running: {
      entry: { type: 'setStatus', params: { to: 'running' } },
      on: {
        TURN_TERMINAL: { guard: 'isOwnRootTurn', target: 'ended' },
        END: 'ended',
        SUPERSEDE: 'superseded',
      },
    },
    ended: {
      always: [
        { guard: 'endsCompleted', target: 'completed' },
        { guard: 'endsInterrupted', target: 'interrupted' },
        { target: 'failed' },
      ],
    },
    completed: { type: 'final', entry: { type: 'setStatus', params: { to: 'completed' } } },
    // An interrupted attempt may still be superseded by the replacement a steer asked for.
    interrupted: { tags: ['terminal'], entry: { type: 'setStatus', params: { to: 'interrupted' } }, on: { SUPERSEDE: 'superseded' } },
    failed: { type: 'final', entry: { type: 'setStatus', params: { to: 'failed' } } },
    superseded: { type: 'final', entry: { type: 'setStatus', params: { to: 'superseded' } } },
    cancelled: { type: 'final', entry: { type: 'setStatus', params: { to: 'cancelled' } } },
  },
});
