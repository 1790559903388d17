import { emit, enqueueActions, setup } from 'xstate';
import type { RunAttemptStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';
import type { RunAttemptInput, RunAttemptEvent } from './entity-messages.js';
import { changeStatus, terminalTag, type EntityTag } from './status-actions.js';

/**
 * RunAttempt: one provider execution of a run. A run has several when steering had to
 * interrupt and restart: the interrupted attempt is superseded, never deleted, so the
 * graph keeps it for audit. Only the root turn of this attempt ends it.
 */
export const RUN_ATTEMPT_MACHINE_VERSION = 1;

export type { RunAttemptInput, RunAttemptEvent };

export interface RunAttemptContext extends RunAttemptInput {
  status: RunAttemptStatus;
}

export const runAttemptMachine = setup({
  types: {
    context: {} as RunAttemptContext,
    events: {} as RunAttemptEvent,
    input: {} as RunAttemptInput,
    emitted: {} as MachineOutput,
    tags: {} as EntityTag,
  },
  guards: {
    isOwnRootTurn: ({ context, event }) =>
      event.type === 'TURN_TERMINAL' && event.attemptId === context.attemptId && event.nodeId === context.rootNodeId,
    isOwnStart: ({ context, event }) => event.type === 'TURN_STARTED' && event.attemptId === context.attemptId,
    endsCompleted: ({ event }) => 'status' in event && event.status === 'completed',
    endsInterrupted: ({ event }) => 'status' in event && event.status === 'interrupted',
  },
  actions: {
    setStatus: enqueueActions(
      changeStatus<RunAttemptContext, RunAttemptStatus>((context, { to }) =>
        domain('attempt.status-changed', {
          threadId: context.threadId,
          runId: context.runId,
          attemptId: context.attemptId,
          to,
          reason: to === 'superseded' ? 'steering_restart' : null,
        }),
      ),
    ),
    announce: emit(({ context }) =>
      domain('attempt.created', {
        threadId: context.threadId,
        attempt: {
          id: context.attemptId,
          runId: context.runId,
          attemptOrdinal: context.attemptOrdinal,
          rootNodeId: context.rootNodeId,
          providerThreadId: context.providerThreadId,
          providerTurnId: null,
          reason: context.reason,
          status: 'pending',
        },
      }),
    ),
  },
}).createMachine({
  id: 'runAttempt',
  context: ({ input }) => ({ ...input, status: 'pending' }),
  initial: 'pending',
  entry: 'announce',
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
    interrupted: {
      tags: [terminalTag],
      entry: { type: 'setStatus', params: { to: 'interrupted' } },
      on: { SUPERSEDE: 'superseded' },
    },
    failed: { type: 'final', entry: { type: 'setStatus', params: { to: 'failed' } } },
    superseded: { type: 'final', entry: { type: 'setStatus', params: { to: 'superseded' } } },
    cancelled: { type: 'final', entry: { type: 'setStatus', params: { to: 'cancelled' } } },
  },
});
