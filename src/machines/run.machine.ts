import { and, assign, emit, enqueueActions, setup } from 'xstate';
import type { RunStatus } from '../domain/statuses.js';
import { applyStep, domain, type MachineOutput } from './outputs.js';
import type { BarrierStep, RunInput, RunSettings, RunEvent, TerminalStatus } from './entity-messages.js';
import {
  checkpointCapture,
  endLiveWork,
  endTurnOutputs,
  finishRun,
  interruptByPolicy,
  ref,
  requestInterrupt,
  startRecovery,
  startReplacement,
  startRun,
  steerByRestart,
  steerNative,
  type RunContext,
} from './run-outputs.js';
import { changeStatus, endedState, type EntityTag } from './status-actions.js';

/**
 * Run: one counted user turn. The rules it makes impossible to break:
 * - only the root node of the active attempt can end the run (a child or subagent turn,
 *   or a superseded attempt's turn, finishing is ignored here);
 * - an interrupt request returning is an acknowledgement, not an end: the run ends on the
 *   provider's terminal event, or by declared policy when the provider cannot interrupt;
 * - the finalization barrier runs its steps in order, each an event, and the run becomes
 *   terminal only after the checkpoint step;
 * - once the run leaves `live`, nothing more is asked of the provider for it: its waiting
 *   provider effects are cancelled and its open requests end, in the same commit.
 */
export const RUN_MACHINE_VERSION = 3;

export type { RunContext, RunInput, RunSettings, RunEvent, TerminalStatus };

/** One in-memory barrier step: ask the runtime to do it, move on only when it reports that step done. */
const barrierStep = (step: BarrierStep, next: string) => ({
  entry: { type: 'requestBarrierStep' as const, params: { step } },
  on: {
    BARRIER_STEP_DONE: {
      guard: { type: 'isBarrierStep' as const, params: { step } },
      target: next,
      actions: { type: 'recordBarrierStep' as const, params: { step } },
    },
  },
});

export const runMachine = setup({
  types: {
    context: {} as RunContext,
    events: {} as RunEvent,
    input: {} as RunInput,
    emitted: {} as MachineOutput,
    tags: {} as EntityTag,
  },
  guards: {
    isBarrierStep: ({ event }, params: { step: BarrierStep }) =>
      event.type === 'BARRIER_STEP_DONE' && event.step === params.step,
    isActiveAttempt: ({ context, event }) => 'attemptId' in event && event.attemptId === context.activeAttemptId,
    /** Only the root node of the active attempt ends the run. */
    isRootTurnOfActiveAttempt: ({ context, event }) =>
      event.type === 'TURN_TERMINAL' &&
      event.attemptId === context.activeAttemptId &&
      event.nodeId === context.rootNodeId,
    restartPending: ({ context }) => context.pendingRestart !== null,
    canInterrupt: ({ context, event }) =>
      event.type === 'INTERRUPT' && event.supportsInterrupt && !context.interruptRequested,
    cannotInterrupt: ({ event }) => event.type === 'INTERRUPT' && !event.supportsInterrupt,
    noRequestsLeft: ({ context, event }) =>
      event.type === 'REQUEST_CLOSED' && context.pendingRequestIds.filter((id) => id !== event.requestId).length === 0,
    endsCompleted: ({ context }) => context.terminalStatus === 'completed',
    endsInterrupted: ({ context }) => context.terminalStatus === 'interrupted',
    /** Only the attempt on the failed provider thread, before its turn began, is recovered. */
    isOnFailedProviderThread: ({ context, event }) =>
      event.type === 'PROVIDER_RECOVERY' && event.failedProviderThreadId === context.providerThreadId,
  },
  actions: {
    requestBarrierStep: emit(({ context }, params: { step: BarrierStep }) => ({
      type: 'barrier' as const,
      runId: context.runId,
      step: params.step,
    })),
    recordBarrierStep: emit(({ context }, params: { step: BarrierStep }) =>
      domain('run.barrier-step', { ...ref(context), step: params.step }),
    ),
    setStatus: enqueueActions(
      changeStatus<RunContext, RunStatus>((context, { from, to }) =>
        domain('run.status-changed', { ...ref(context), from, to, reason: null }),
      ),
    ),
    /** The run's turn comes: the baseline checkpoint, then its first attempt on the provider. */
    start: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'START') return;
      applyStep(enqueue, startRun(context, event));
    }),
    /** Ended before it started: nothing was asked of the provider. */
    markCancelled: assign({ terminalStatus: 'cancelled' as const }),
    /** The barrier's last step: the checkpoint of the workspace as the run left it. */
    requestCheckpoint: emit(({ context }) => checkpointCapture(context)),
    recordCheckpoint: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'CHECKPOINT_RECORDED') return;
      enqueue.assign({ checkpointId: event.checkpointId });
      enqueue.emit(domain('run.barrier-step', { ...ref(context), step: 'checkpoint' }));
    }),
    requestInterrupt: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'INTERRUPT') return;
      applyStep(enqueue, requestInterrupt(context, event));
    }),
    /** Declared policy for a provider without interrupt: stop its session, end the run interrupted. */
    interruptByPolicy: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'INTERRUPT') return;
      applyStep(enqueue, interruptByPolicy(context, event));
    }),
    /** The provider process is gone: its turn will never report its end. */
    providerLost: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'PROVIDER_LOST') return;
      enqueue.assign({ terminalStatus: event.status, error: event.error });
      for (const o of endTurnOutputs(context, event.status)) enqueue.emit(o);
    }),
    /** Leaving `live`: the provider's waiting effects for this run are moot, and its open requests end. */
    endLiveWork: enqueueActions(({ context, enqueue }) => {
      for (const o of endLiveWork(context)) enqueue.emit(o);
    }),
    acknowledgeInterrupt: emit(({ context }) => domain('run.interrupt-acknowledged', ref(context))),
    addRequest: assign({
      pendingRequestIds: ({ context, event }) =>
        event.type === 'REQUEST_OPENED' && !context.pendingRequestIds.includes(event.requestId)
          ? [...context.pendingRequestIds, event.requestId]
          : context.pendingRequestIds,
    }),
    removeRequest: assign({
      pendingRequestIds: ({ context, event }) =>
        context.pendingRequestIds.filter((id) => event.type !== 'REQUEST_CLOSED' || id !== event.requestId),
    }),
    steerNative: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'STEER_NATIVE') return;
      for (const o of steerNative(context, event)) enqueue.emit(o);
    }),
    steerByRestart: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'STEER_RESTART') return;
      applyStep(enqueue, steerByRestart(context, event));
    }),
    /** The interrupted attempt is superseded and its replacement starts under the same run. */
    startReplacement: enqueueActions(({ context, enqueue }) => {
      const next = context.pendingRestart;
      if (!next) return;
      applyStep(enqueue, startReplacement(context, next));
    }),
    /** The attempt on the failed provider thread ends failed; a `provider_recovery` attempt takes the run to the replacement. */
    startRecovery: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'PROVIDER_RECOVERY') return;
      applyStep(enqueue, startRecovery(context, event));
    }),
    recordTurnTerminal: assign(({ context, event }) =>
      event.type === 'TURN_TERMINAL' ? { terminalStatus: event.status, error: event.error ?? null } : context,
    ),
    finish: enqueueActions(({ context, enqueue }) => {
      for (const o of finishRun(context)) enqueue.emit(o);
    }),
  },
}).createMachine({
  id: 'run',
  context: ({ input }) => ({
    ...input,
    status: 'queued',
    settings: null,
    ordinal: null,
    providerThreadId: null,
    activeAttemptId: null,
    attemptCount: 0,
    pendingRestart: null,
    interruptRequested: false,
    pendingRequestIds: [],
    terminalStatus: null,
    error: null,
    checkpointId: null,
  }),
  initial: 'queued',
  states: {
    queued: {
      on: {
        START: { target: 'live', actions: 'start' },
        CANCEL: { target: 'cancelled', actions: 'markCancelled' },
        INTERRUPT: { target: 'cancelled', actions: 'markCancelled' },
      },
    },
    live: {
      initial: 'starting',
      states: {
        starting: {
          entry: { type: 'setStatus', params: { to: 'starting' } },
          on: { TURN_STARTED: { guard: 'isActiveAttempt', target: 'running' } },
        },
        running: {
          initial: 'working',
          states: {
            working: {
              entry: { type: 'setStatus', params: { to: 'running' } },
              on: { REQUEST_OPENED: { target: 'waiting', actions: 'addRequest' } },
            },
            waiting: {
              entry: { type: 'setStatus', params: { to: 'waiting' } },
              on: {
                REQUEST_OPENED: { actions: 'addRequest' },
                REQUEST_CLOSED: [
                  { guard: 'noRequestsLeft', target: 'working', actions: 'removeRequest' },
                  { actions: 'removeRequest' },
                ],
              },
            },
          },
        },
      },
      on: {
        // Steering is taken from the moment the run is live; the adapter applies it once the turn exists.
        STEER_NATIVE: { actions: 'steerNative' },
        // A request that opens before the turn is reported started is still the run's to end.
        REQUEST_OPENED: { actions: 'addRequest' },
        // One that stops being the run's (its asker moved to the background) is not ended with it.
        REQUEST_CLOSED: { actions: 'removeRequest' },
        STEER_RESTART: { actions: 'steerByRestart' },
        TURN_TERMINAL: [
          // The interrupted attempt of a steering restart: its replacement starts, the run goes on.
          {
            guard: and(['isRootTurnOfActiveAttempt', 'restartPending']),
            target: '.running',
            actions: 'startReplacement',
          },
          { guard: 'isRootTurnOfActiveAttempt', target: 'finalizing', actions: 'recordTurnTerminal' },
          // Any other turn (a child, a subagent, a superseded attempt) never ends the run.
        ],
        INTERRUPT: [
          { guard: 'canInterrupt', actions: 'requestInterrupt' },
          { guard: 'cannotInterrupt', target: 'finalizing', actions: 'interruptByPolicy' },
        ],
        INTERRUPT_ACKNOWLEDGED: { actions: 'acknowledgeInterrupt' },
        PROVIDER_LOST: { target: 'finalizing', actions: 'providerLost' },
        PROVIDER_RECOVERY: { guard: 'isOnFailedProviderThread', target: '.starting', actions: 'startRecovery' },
      },
    },
    finalizing: {
      entry: 'endLiveWork',
      initial: 'flush_text',
      states: {
        flush_text: barrierStep('flush_text', 'close_messages'),
        close_messages: barrierStep('close_messages', 'finalize_plans'),
        finalize_plans: barrierStep('finalize_plans', 'close_children'),
        close_children: barrierStep('close_children', 'checkpoint'),
        checkpoint: {
          entry: 'requestCheckpoint',
          on: { CHECKPOINT_RECORDED: { target: 'done', actions: 'recordCheckpoint' } },
        },
        done: { type: 'final' },
      },
      onDone: [
        { guard: 'endsCompleted', target: 'completed' },
        { guard: 'endsInterrupted', target: 'interrupted' },
        { target: 'failed' },
      ],
    },
    // Terminal: late provider events are not listed here, so they are ignored.
    completed: endedState('completed', 'finish'),
    interrupted: endedState('interrupted', 'finish'),
    failed: endedState('failed', 'finish'),
    cancelled: { type: 'final', entry: [{ type: 'setStatus', params: { to: 'cancelled' } }, 'finish'] },
    rolled_back: { type: 'final', entry: { type: 'setStatus', params: { to: 'rolled_back' } } },
  },
});
