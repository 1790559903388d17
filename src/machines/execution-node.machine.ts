import { emit, enqueueActions, setup } from 'xstate';
import type { NodeStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';
import type { ExecutionNodeInput, ExecutionNodeEvent } from './entity-messages.js';
import { changeStatus, endedState, type EntityTag } from './status-actions.js';

/**
 * ExecutionNode: one piece of work inside a run (the root turn, a message, a tool call, an
 * approval, a subagent...). A node ending never ends its run: only the Run decides that,
 * from the root turn of its active attempt.
 */
export const EXECUTION_NODE_MACHINE_VERSION = 1;

export type { ExecutionNodeInput, ExecutionNodeEvent };

export interface ExecutionNodeContext extends ExecutionNodeInput {
  status: NodeStatus;
}

export const executionNodeMachine = setup({
  types: {
    context: {} as ExecutionNodeContext,
    events: {} as ExecutionNodeEvent,
    input: {} as ExecutionNodeInput,
    emitted: {} as MachineOutput,
    tags: {} as EntityTag,
  },
  guards: {
    endsCompleted: ({ event }) => 'status' in event && event.status === 'completed',
    endsInterrupted: ({ event }) => 'status' in event && event.status === 'interrupted',
    endsCancelled: ({ event }) => 'status' in event && event.status === 'cancelled',
  },
  actions: {
    /** A subagent is a checkpoint scope of its own, nested under its run's: capture it when it ends. */
    captureScope: enqueueActions(({ context, enqueue }) => {
      if (context.kind !== 'subagent') return;
      enqueue.emit({
        type: 'effect',
        effect: {
          kind: 'checkpoint.capture',
          provider: null,
          runId: context.runId,
          nodeId: context.nodeId,
          payload: { scope: 'subagent' },
        },
      });
    }),
    setStatus: enqueueActions(
      changeStatus<ExecutionNodeContext, NodeStatus>((context, { to }) =>
        domain('node.status-changed', { threadId: context.threadId, runId: context.runId, nodeId: context.nodeId, to }),
      ),
    ),
    announce: emit(({ context }) =>
      domain('node.created', {
        threadId: context.threadId,
        node: {
          id: context.nodeId,
          runId: context.runId,
          attemptId: context.attemptId,
          parentNodeId: context.parentNodeId,
          kind: context.kind,
          status: 'pending',
          countsForRun: context.countsForRun,
          providerThreadId: null,
          providerTurnId: null,
          title: context.title,
        },
      }),
    ),
  },
}).createMachine({
  id: 'executionNode',
  context: ({ input }) => ({ ...input, status: 'pending' }),
  entry: 'announce',
  initial: 'pending',
  states: {
    pending: { on: { START: 'running', END: 'ended', CLOSE: 'ended' } },
    running: {
      entry: { type: 'setStatus', params: { to: 'running' } },
      on: { WAIT: 'waiting', END: 'ended', CLOSE: 'ended' },
    },
    waiting: {
      entry: { type: 'setStatus', params: { to: 'waiting' } },
      on: { RESUME: 'running', END: 'ended', CLOSE: 'ended' },
    },
    ended: {
      always: [
        { guard: 'endsCompleted', target: 'completed' },
        { guard: 'endsInterrupted', target: 'interrupted' },
        { guard: 'endsCancelled', target: 'cancelled' },
        { target: 'failed' },
      ],
    },
    completed: endedState('completed', 'captureScope'),
    interrupted: endedState('interrupted', 'captureScope'),
    failed: endedState('failed', 'captureScope'),
    cancelled: endedState('cancelled'),
    rolled_back: { type: 'final', entry: { type: 'setStatus', params: { to: 'rolled_back' } } },
  },
});
