import { emit, enqueueActions, setup } from 'xstate';
import type { NodeKind, NodeStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';

/**
 * ExecutionNode: one piece of work inside a run (the root turn, a message, a tool call, an
 * approval, a subagent...). A node ending never ends its run: only the Run decides that,
 * from the root turn of its active attempt.
 */
export const EXECUTION_NODE_MACHINE_VERSION = 1;

export interface ExecutionNodeInput {
  nodeId: string;
  runId: string;
  threadId: string;
  attemptId: string | null;
  parentNodeId: string | null;
  kind: NodeKind;
  countsForRun: boolean;
  title: string | null;
}

export interface ExecutionNodeContext extends ExecutionNodeInput {
  status: NodeStatus;
}

type EndStatus = 'completed' | 'interrupted' | 'failed' | 'cancelled';
export type ExecutionNodeEvent =
  | { type: 'START' }
  | { type: 'WAIT' }
  | { type: 'RESUME' }
  | { type: 'END'; status: EndStatus }
  /** The barrier closes a node the provider left open once its run is over. */
  | { type: 'CLOSE'; status: EndStatus }
  | { type: 'ROLLED_BACK' };

export const executionNodeMachine = setup({
  types: { context: {} as ExecutionNodeContext, events: {} as ExecutionNodeEvent, input: {} as ExecutionNodeInput, emitted: {} as MachineOutput },
  guards: {
    endsCompleted: ({ event }) => 'status' in event && event.status === 'completed',
    endsInterrupted: ({ event }) => 'status' in event && event.status === 'interrupted',
    endsCancelled: ({ event }) => 'status' in event && event.status === 'cancelled',
  },
  actions: {
    /** A subagent is a checkpoint scope of its own, nested under its run's: capture it when it ends. */
    captureScope: enqueueActions(({ context, enqueue }) => {
      if (context.kind !== 'subagent') return;
      enqueue.emit({ type: 'effect', effect: { kind: 'checkpoint.capture', provider: null, runId: context.runId, nodeId: context.nodeId, payload: { scope: 'subagent' } } });
    }),
    setStatus: enqueueActions(({ context, enqueue }, params: { to: NodeStatus }) => {
      if (context.status === params.to) return;
      enqueue.assign({ status: params.to });
      enqueue.emit(domain('node.status-changed', { threadId: context.threadId as never, runId: context.runId as never, nodeId: context.nodeId as never, to: params.to }));
    }),
  },
}).createMachine({
  id: 'executionNode',
  context: ({ input }) => ({ ...input, status: 'pending' }),
  entry: emit(({ context }) =>
    domain('node.created', {
      threadId: context.threadId as never,
      node: { id: context.nodeId as never, runId: context.runId as never, attemptId: context.attemptId as never, parentNodeId: context.parentNodeId as never, kind: context.kind, status: 'pending', countsForRun: context.countsForRun, providerThreadId: null, providerTurnId: null, title: context.title },
    }),
  ),
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
    completed: { tags: ['terminal'], entry: [{ type: 'setStatus', params: { to: 'completed' } }, 'captureScope'], on: { ROLLED_BACK: 'rolled_back' } },
    interrupted: { tags: ['terminal'], entry: [{ type: 'setStatus', params: { to: 'interrupted' } }, 'captureScope'], on: { ROLLED_BACK: 'rolled_back' } },
    failed: { tags: ['terminal'], entry: [{ type: 'setStatus', params: { to: 'failed' } }, 'captureScope'], on: { ROLLED_BACK: 'rolled_back' } },
    cancelled: { tags: ['terminal'], entry: { type: 'setStatus', params: { to: 'cancelled' } }, on: { ROLLED_BACK: 'rolled_back' } },
    rolled_back: { type: 'final', entry: { type: 'setStatus', params: { to: 'rolled_back' } } },
  },
});
