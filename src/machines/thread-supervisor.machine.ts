import { and, assign, enqueueActions, not, setup } from 'xstate';
import type { DispatchMode, ThreadStatus } from '../domain/statuses.js';
import { applyStep, domain, type MachineOutput } from './outputs.js';
import type {
  DispatchCapabilities,
  ThreadSettings,
  ThreadSupervisorInput,
  ThreadSupervisorEvent,
} from './entity-messages.js';
import { parkedAfterRollback, recordSwitch, spawnProviderThread } from './provider-switching.js';
import { replaceFailedProviderThread, rollbackProviderThread } from './provider-thread-recovery.js';
import {
  newRun,
  startNextRun,
  steerRun,
  targetsActiveRun,
  type SendMessage,
  type ThreadRunsState,
} from './thread-runs.js';

/**
 * ThreadSupervisor: one per AppThread. It owns what belongs to the thread as a whole:
 * which run is active, the queue and its order, whether the queue is held, the dense
 * numbering of counted runs, and the dispatch of a new message by the provider's
 * capabilities (steer natively, steer by interrupt-and-restart, queue or start).
 */
export const THREAD_SUPERVISOR_MACHINE_VERSION = 3;

export type { DispatchCapabilities, ThreadSettings, ThreadSupervisorInput, ThreadSupervisorEvent };

export { targetsActiveRun };

export interface ThreadSupervisorContext extends ThreadRunsState {
  status: ThreadStatus;
}

type Ctx = ThreadSupervisorContext;

const modeIs = (...modes: DispatchMode[]) => ({ type: 'modeIs' as const, params: { modes } });
const isSend = (e: ThreadSupervisorEvent): e is SendMessage => e.type === 'SEND';

export const threadSupervisorMachine = setup({
  types: {
    context: {} as Ctx,
    events: {} as ThreadSupervisorEvent,
    input: {} as ThreadSupervisorInput,
    emitted: {} as MachineOutput,
  },
  guards: {
    modeIs: ({ event }, params: { modes: DispatchMode[] }) => isSend(event) && params.modes.includes(event.mode),
    targetsActiveRun: ({ context, event }) => isSend(event) && targetsActiveRun(context, event.targetRunId),
    canSteerNatively: ({ context }) => !context.activeRunEnding && context.capabilities.supportsActiveSteering,
    canSteerByRestart: ({ context }) =>
      !context.activeRunEnding &&
      context.capabilities.supportsSteeringByInterruptRestart &&
      context.capabilities.supportsInterrupt,
    queueReady: ({ context }) => context.queue.length > 0 && !context.queueHeld,
    isActiveRun: ({ context, event }) => 'runId' in event && event.runId === context.activeRunId,
    isQueued: ({ context, event }) => 'runId' in event && context.queue.includes(event.runId),
    isQueuedAndSteerableNatively: ({ context, event }) =>
      'runId' in event &&
      context.queue.includes(event.runId) &&
      !context.activeRunEnding &&
      context.capabilities.supportsActiveSteering,
    isQueuedAndSteerableByRestart: ({ context, event }) =>
      'runId' in event &&
      context.queue.includes(event.runId) &&
      !context.activeRunEnding &&
      context.capabilities.supportsSteeringByInterruptRestart &&
      context.capabilities.supportsInterrupt,
    isPermutationOfQueue: ({ context, event }) =>
      event.type === 'REORDER' &&
      event.order.length === context.queue.length &&
      [...event.order].sort().join() === [...context.queue].sort().join(),
    /** A late report about a provider thread already replaced changes nothing. */
    isCurrentProviderThread: ({ context, event }) =>
      event.type === 'PROVIDER_THREAD_FAILED' && event.failedProviderThreadId === context.providerThreadId,
    isCountedOrdinal: ({ context, event }) =>
      event.type === 'ROLLBACK' && event.runOrdinal <= context.countedRunIds.length,
  },
  actions: {
    /** A new run: the user message, the run entity and its place at the end of the queue. */
    createRun: enqueueActions(({ context, event, enqueue }) => {
      if (!isSend(event)) return;
      applyStep(enqueue, newRun(context, event));
    }),
    /** An explicit send is the user continuing: it releases a held queue. */
    releaseHold: enqueueActions(({ context, enqueue }) => {
      if (!context.queueHeld) return;
      enqueue.assign({ queueHeld: false });
      enqueue.emit(domain('thread.queue-held', { threadId: context.threadId, held: false, reason: 'send' }));
    }),
    startNext: enqueueActions(({ context, enqueue }) => {
      const next = startNextRun(context);
      if (next) applyStep(enqueue, next);
    }),
    steer: enqueueActions(({ context, event, enqueue }, params: { strategy: 'native' | 'restart' }) => {
      const runId = context.activeRunId;
      if ((event.type !== 'SEND' && event.type !== 'PROMOTE') || !runId) return;
      for (const o of steerRun(context, runId, event, params.strategy)) enqueue.emit(o);
    }),
    interruptActive: enqueueActions(({ context, event, enqueue }) => {
      const holdQueue = event.type === 'STOP' || (event.type === 'INTERRUPT' && event.holdQueue);
      if (holdQueue && !context.queueHeld) {
        enqueue.assign({ queueHeld: true });
        enqueue.emit(
          domain('thread.queue-held', {
            threadId: context.threadId,
            held: true,
            reason: event.type === 'STOP' ? 'stop' : 'interrupt',
          }),
        );
      }
      if (context.activeRunId) {
        enqueue.emit({
          type: 'send',
          to: { kind: 'run', id: context.activeRunId },
          event: { type: 'INTERRUPT', holdQueue, supportsInterrupt: context.capabilities.supportsInterrupt },
        });
      }
    }),
    cancelQueued: enqueueActions(({ context, event, enqueue }, params: { reason: string }) => {
      if (!('runId' in event)) return;
      enqueue.assign({ queue: context.queue.filter((id) => id !== event.runId) });
      // Baton's own cancel (a wake-up a Stop dropped) says why; the user's says it was theirs.
      const reason = event.type === 'CANCEL_QUEUED' && event.reason ? event.reason : params.reason;
      enqueue.emit({ type: 'send', to: { kind: 'run', id: event.runId }, event: { type: 'CANCEL', reason } });
    }),
    finishRun: assign(({ context, event }) =>
      event.type === 'RUN_FINISHED'
        ? {
            activeRunId: context.activeRunId === event.runId ? null : context.activeRunId,
            activeRunEnding: context.activeRunId === event.runId ? false : context.activeRunEnding,
            queue: context.queue.filter((id) => id !== event.runId),
          }
        : {},
    ),
    /** Later counted runs are rolled back; the provider rolls back too, or is marked divergent and replaced. */
    rollBackLaterRuns: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'ROLLBACK') return;
      const later = context.countedRunIds.slice(event.runOrdinal);
      for (const runId of later)
        enqueue.emit({ type: 'send', to: { kind: 'run', id: runId }, event: { type: 'ROLLED_BACK' } });
      enqueue.assign({ countedRunIds: context.countedRunIds.slice(0, event.runOrdinal) });
      enqueue.emit(
        domain('thread.rolled-back', {
          threadId: context.threadId,
          runOrdinal: event.runOrdinal,
          rolledBackRunIds: later,
        }),
      );
      // A merge-back not yet told was recorded after every kept run: the rollback takes it back with its files.
      for (const m of context.pendingMergeBacks ?? [])
        enqueue.emit({
          type: 'send',
          to: { kind: 'context_transfer', id: m.transferId },
          event: { type: 'SUPERSEDE', reason: `rolled back to run ${event.runOrdinal}` },
        });
      if (context.pendingMergeBacks?.length) enqueue.assign({ pendingMergeBacks: [] });
      if (later.length === 0) return;
      enqueue.assign(parkedAfterRollback(context, event.runOrdinal));
      applyStep(enqueue, rollbackProviderThread(context, event.runOrdinal, event.replacementProviderThreadId));
    }),
    markActiveRunEnding: assign({ activeRunEnding: true }),
    reorderQueue: enqueueActions(({ event, enqueue, context }) => {
      if (event.type !== 'REORDER') return;
      enqueue.assign({ queue: event.order });
      enqueue.emit(domain('run.queue-reordered', { threadId: context.threadId, order: event.order }));
    }),
    /** The failed provider thread is replaced; the active run goes on in the replacement, or the next run reseeds it. */
    replaceProviderThread: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'PROVIDER_THREAD_FAILED') return;
      applyStep(enqueue, replaceFailedProviderThread(context, event));
    }),
    /** A fork's work to tell the next run: its transfer is recorded now, pending until that run starts. */
    recordMergeBack: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'MERGE_BACK') return;
      const { transfer } = event;
      enqueue.emit({ type: 'spawn', entity: { kind: 'context_transfer', id: transfer.transferId, input: transfer } });
      enqueue.assign({
        pendingMergeBacks: [
          ...(context.pendingMergeBacks ?? []),
          {
            transferId: transfer.transferId,
            fromThreadId: transfer.sourceThreadId,
            throughOrdinal: event.throughOrdinal,
          },
        ],
      });
    }),
    applySettings: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'SETTINGS_UPDATE') return;
      enqueue.assign({ ...event.changes });
      // A provider switch: dispatch by the new provider's flags; its provider thread is chosen when the next run starts.
      if (event.switch) {
        applyStep(enqueue, recordSwitch(context, event.switch, event.changes.provider ?? context.provider));
      }
      enqueue.emit(domain('thread.settings-updated', { threadId: context.threadId, changes: event.changes }));
    }),
    /** The thread exists: its record, and the provider thread it starts on. */
    announce: enqueueActions(({ context, enqueue }) => {
      enqueue.emit(
        domain('thread.created', {
          thread: {
            id: context.threadId,
            title: context.title,
            status: 'active',
            provider: context.provider,
            model: context.model,
            runtimeMode: context.runtimeMode,
            interactionMode: context.interactionMode,
            acpAgent: context.acpAgent ?? null,
            workspace: { cwd: context.cwd, branch: null, worktree: null },
            activeProviderThreadId: context.providerThreadId,
            lineage: {
              parentThreadId: context.parentThreadId,
              relationshipToParent: context.relationshipToParent,
              rootThreadId: context.rootThreadId,
            },
            createdAt: context.createdAt,
          },
        }),
      );
      enqueue.emit(
        spawnProviderThread(
          context.threadId,
          context.providerThreadId,
          context.provider,
          context.pendingFork?.sourceProviderThreadId ?? null,
        ),
      );
    }),
    markArchived: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ status: 'archived' });
      enqueue.emit(domain('thread.archived', { threadId: context.threadId }));
    }),
    markDeleted: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ status: 'deleted' });
      enqueue.emit(domain('thread.deleted', { threadId: context.threadId }));
    }),
  },
}).createMachine({
  id: 'threadSupervisor',
  context: ({ input }) => ({
    ...input,
    status: 'active',
    queue: [],
    activeRunId: null,
    activeRunEnding: false,
    countedRunIds: [],
    queueHeld: false,
    reseedNext: false,
    pendingFork: input.forkOrigin ?? null,
  }),
  entry: 'announce',
  initial: 'active',
  states: {
    active: {
      initial: 'idle',
      states: {
        idle: {
          always: { guard: 'queueReady', target: 'busy', actions: 'startNext' },
          on: {
            // With no active run, every dispatch mode starts immediately.
            SEND: { guard: 'targetsActiveRun', target: 'idle', reenter: true, actions: ['createRun', 'releaseHold'] },
            ROLLBACK: {
              guard: 'isCountedOrdinal',
              actions: 'rollBackLaterRuns',
            },
            ARCHIVE: { target: '#threadSupervisor.archived' },
            DELETE: { target: '#threadSupervisor.deleted' },
          },
        },
        busy: {
          on: {
            SEND: [
              { guard: modeIs('queue_after_active'), actions: 'createRun' },
              {
                guard: and([modeIs('steer_active', 'auto'), 'targetsActiveRun', 'canSteerNatively']),
                actions: { type: 'steer', params: { strategy: 'native' } },
              },
              {
                guard: and([modeIs('steer_active', 'auto', 'restart_active'), 'targetsActiveRun', 'canSteerByRestart']),
                actions: { type: 'steer', params: { strategy: 'restart' } },
              },
              // No way to steer: the message waits as the next run (unless it named the run to steer).
              { guard: and([modeIs('auto', 'steer_active'), 'targetsActiveRun']), actions: 'createRun' },
              // start_immediately (and restart_active without interrupt) is refused while a run is active.
            ],
            PROMOTE: [
              {
                guard: 'isQueuedAndSteerableNatively',
                actions: [
                  { type: 'cancelQueued', params: { reason: 'promoted' } },
                  { type: 'steer', params: { strategy: 'native' } },
                ],
              },
              {
                guard: 'isQueuedAndSteerableByRestart',
                actions: [
                  { type: 'cancelQueued', params: { reason: 'promoted' } },
                  { type: 'steer', params: { strategy: 'restart' } },
                ],
              },
            ],
            RUN_ENDING: { guard: 'isActiveRun', actions: 'markActiveRunEnding' },
            RUN_FINISHED: { guard: 'isActiveRun', target: 'idle', actions: 'finishRun' },
          },
        },
      },
      on: {
        INTERRUPT: [
          { guard: 'isActiveRun', actions: 'interruptActive' },
          { guard: 'isQueued', actions: { type: 'cancelQueued', params: { reason: 'interrupted while queued' } } },
        ],
        STOP: { actions: 'interruptActive' },
        REORDER: {
          guard: 'isPermutationOfQueue',
          actions: 'reorderQueue',
        },
        CANCEL_QUEUED: {
          guard: 'isQueued',
          actions: { type: 'cancelQueued', params: { reason: 'cancelled by user' } },
        },
        RUN_FINISHED: { guard: not('isActiveRun'), actions: 'finishRun' },
        PROVIDER_THREAD_FAILED: {
          guard: 'isCurrentProviderThread',
          actions: 'replaceProviderThread',
        },
        SETTINGS_UPDATE: { actions: 'applySettings' },
        MERGE_BACK: { actions: 'recordMergeBack' },
      },
    },
    archived: {
      entry: 'markArchived',
      on: { DELETE: 'deleted' },
    },
    deleted: {
      type: 'final',
      entry: 'markDeleted',
    },
  },
});
