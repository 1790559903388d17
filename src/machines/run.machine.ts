import { and, assign, emit, enqueueActions, setup } from 'xstate';
import type { ErrorInfo } from '../domain/errors.js';
import type { CheckpointId, NodeId, ProviderThreadId, RunAttemptId, RuntimeRequestId } from '../domain/ids.js';
import type { AttemptReason, RunStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';
import type {
  BarrierStep,
  PendingMergeBack,
  RunAttemptEvent,
  RunInput,
  RunSettings,
  RunEvent,
  TerminalStatus,
} from './entity-messages.js';
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

export type { RunInput, RunSettings, RunEvent, TerminalStatus };

export interface RunContext extends RunInput {
  status: RunStatus;
  settings: RunSettings | null;
  ordinal: number | null;
  providerThreadId: ProviderThreadId | null;
  activeAttemptId: RunAttemptId | null;
  attemptCount: number;
  pendingRestart: { attemptId: RunAttemptId; rootNodeId: NodeId; text: string } | null;
  interruptRequested: boolean;
  pendingRequestIds: RuntimeRequestId[];
  terminalStatus: TerminalStatus | null;
  error: ErrorInfo | null;
  checkpointId: CheckpointId | null;
}

const ref = (c: RunContext) => ({ threadId: c.threadId, runId: c.runId });

/** The outputs that start one provider attempt of this run. */
function attemptOutputs(
  c: RunContext,
  attemptId: RunAttemptId,
  rootNodeId: NodeId,
  attemptOrdinal: number,
  reason: AttemptReason,
  text: string,
  fork: Record<string, unknown> | null = null,
  handoff: { sinceOrdinal: number; transferId: string | null } | null = null,
  mergeBacks: PendingMergeBack[] = [],
): MachineOutput[] {
  return [
    {
      type: 'spawn',
      entity: {
        kind: 'run_attempt',
        id: attemptId,
        input: {
          attemptId,
          runId: c.runId,
          threadId: c.threadId,
          attemptOrdinal,
          rootNodeId,
          reason,
          providerThreadId: c.providerThreadId,
        },
      },
    },
    {
      type: 'spawn',
      entity: {
        kind: 'execution_node',
        id: rootNodeId,
        input: {
          nodeId: rootNodeId,
          runId: c.runId,
          threadId: c.threadId,
          attemptId,
          parentNodeId: null,
          kind: 'root_turn',
          countsForRun: true,
          title: null,
        },
      },
    },
    {
      type: 'effect',
      effect: {
        kind: 'provider.turn.start',
        provider: c.provider,
        runId: c.runId,
        nodeId: rootNodeId,
        payload: {
          attemptId,
          rootNodeId,
          reason,
          text,
          provider: c.provider,
          model: c.model,
          ...c.settings,
          acpAgent: c.settings?.acpAgent ?? null,
          providerThreadId: c.providerThreadId,
          fork,
          ...(handoff ? { handoff: { sinceOrdinal: handoff.sinceOrdinal }, transferId: handoff.transferId } : {}),
          ...(mergeBacks.length ? { mergeBacks } : {}),
        },
      },
    },
  ];
}

/** Ends the active attempt and its root turn when the provider will never report them (it is gone, or stopped by policy). */
function endTurnOutputs(c: RunContext, status: 'failed' | 'interrupted'): MachineOutput[] {
  return [
    ...toActiveAttempt(c, { type: 'END', status }),
    { type: 'send', to: { kind: 'execution_node', id: c.rootNodeId }, event: { type: 'END', status } },
  ];
}

/** The event to the active attempt (a live run always has one). */
const toActiveAttempt = (c: RunContext, event: RunAttemptEvent): MachineOutput[] =>
  c.activeAttemptId ? [{ type: 'send', to: { kind: 'run_attempt', id: c.activeAttemptId }, event }] : [];

/** Why the run's live work ended, for what it cancels. */
const endReason = (c: RunContext): string =>
  `run ${c.runId} ended ${c.terminalStatus ?? 'failed'}${c.error ? `: ${c.error.message}` : ''}`;

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
      // A run queued before a provider switch starts on the provider the thread has now.
      const moved = event.provider !== undefined && event.provider !== context.provider;
      const provider = moved ? event.provider! : context.provider;
      const model = moved ? (event.model ?? null) : context.model;
      const started = {
        ...context,
        provider,
        model,
        ordinal: event.ordinal,
        providerThreadId: event.providerThreadId,
        settings: event.settings,
      };
      // The workspace as it was before this run: checkpoint N-1, captured before the provider starts.
      enqueue.emit({
        type: 'effect',
        effect: {
          kind: 'checkpoint.baseline',
          provider: null,
          runId: context.runId,
          nodeId: null,
          payload: { ordinal: event.ordinal - 1 },
        },
      });
      for (const o of attemptOutputs(
        started,
        context.firstAttemptId,
        context.rootNodeId,
        1,
        event.reason,
        context.text,
        event.fork ?? null,
        event.handoff ? { ...event.handoff, transferId: event.transferId ?? null } : null,
        event.mergeBacks ?? [],
      ))
        enqueue.emit(o);
      enqueue.assign({
        provider,
        model,
        ordinal: event.ordinal,
        providerThreadId: event.providerThreadId,
        settings: event.settings,
        activeAttemptId: context.firstAttemptId,
        attemptCount: 1,
      });
      enqueue.emit(
        domain('run.started', {
          ...ref(context),
          ordinal: event.ordinal,
          attemptId: context.firstAttemptId,
          providerThreadId: event.providerThreadId,
          ...(moved ? { provider, model } : {}),
        }),
      );
    }),
    /** Ended before it started: nothing was asked of the provider. */
    markCancelled: assign({ terminalStatus: 'cancelled' as const }),
    /** The barrier's last step: the checkpoint of the workspace as the run left it. */
    requestCheckpoint: emit(({ context }) => ({
      type: 'effect' as const,
      effect: {
        kind: 'checkpoint.capture' as const,
        provider: null,
        runId: context.runId,
        nodeId: context.rootNodeId,
        payload: { ordinal: context.ordinal, runStatus: context.terminalStatus },
      },
    })),
    recordCheckpoint: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'CHECKPOINT_RECORDED') return;
      enqueue.assign({ checkpointId: event.checkpointId });
      enqueue.emit(domain('run.barrier-step', { ...ref(context), step: 'checkpoint' }));
    }),
    requestInterrupt: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'INTERRUPT') return;
      enqueue.assign({ interruptRequested: true, pendingRestart: null });
      enqueue.emit(domain('run.interrupt-requested', { ...ref(context), holdQueue: event.holdQueue }));
      enqueue.emit({
        type: 'effect',
        effect: {
          kind: 'provider.turn.interrupt',
          provider: context.provider,
          runId: context.runId,
          nodeId: context.rootNodeId,
          payload: { attemptId: context.activeAttemptId },
        },
      });
    }),
    /** Declared policy for a provider without interrupt: stop its session, end the run interrupted. */
    interruptByPolicy: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'INTERRUPT') return;
      enqueue.assign({ interruptRequested: true, terminalStatus: 'interrupted' });
      enqueue.emit(domain('run.interrupt-requested', { ...ref(context), holdQueue: event.holdQueue }));
      enqueue.emit(
        domain('runtime.warning', {
          ...ref(context),
          message: 'provider cannot interrupt: its session is stopped and the run ends interrupted by policy',
        }),
      );
      enqueue.emit({
        type: 'effect',
        effect: {
          kind: 'provider.session.stop',
          provider: context.provider,
          runId: context.runId,
          nodeId: null,
          payload: { reason: 'interrupt_unsupported' },
        },
      });
      for (const o of endTurnOutputs(context, 'interrupted')) enqueue.emit(o);
    }),
    /** The provider process is gone: its turn will never report its end. */
    providerLost: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'PROVIDER_LOST') return;
      enqueue.assign({ terminalStatus: event.status, error: event.error });
      for (const o of endTurnOutputs(context, event.status)) enqueue.emit(o);
    }),
    /** Leaving `live`: the provider's waiting effects for this run are moot, and its open requests end. */
    endLiveWork: enqueueActions(({ context, enqueue }) => {
      const reason = endReason(context);
      enqueue.emit({ type: 'cancel_effects', runId: context.runId, reason });
      // From here the run takes no more input: a message sent now waits as the next run.
      enqueue.emit({
        type: 'send',
        to: { kind: 'thread_supervisor', id: context.threadId },
        event: { type: 'RUN_ENDING', runId: context.runId },
      });
      for (const requestId of context.pendingRequestIds)
        enqueue.emit({
          type: 'send',
          to: { kind: 'runtime_request', id: requestId },
          event: { type: 'CANCEL', reason },
        });
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
      enqueue.emit(domain('run.steered', { ...ref(context), messageId: event.messageId, strategy: 'native' }));
      enqueue.emit({
        type: 'effect',
        effect: {
          kind: 'provider.turn.steer',
          provider: context.provider,
          runId: context.runId,
          nodeId: context.rootNodeId,
          payload: { attemptId: context.activeAttemptId, text: event.text, messageId: event.messageId },
        },
      });
    }),
    steerByRestart: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'STEER_RESTART') return;
      const text = `${context.pendingRestart?.text ?? context.text}\n\n${event.text}`;
      enqueue.assign({ pendingRestart: { attemptId: event.attemptId, rootNodeId: event.rootNodeId, text } });
      enqueue.emit(domain('run.steered', { ...ref(context), messageId: event.messageId, strategy: 'restart' }));
      // A second steer while the first restart is pending only updates the replacement's text.
      if (context.pendingRestart) return;
      enqueue.emit({
        type: 'effect',
        effect: {
          kind: 'provider.turn.interrupt',
          provider: context.provider,
          runId: context.runId,
          nodeId: context.rootNodeId,
          payload: { attemptId: context.activeAttemptId, reason: 'steering_restart' },
        },
      });
    }),
    /** The interrupted attempt is superseded and its replacement starts under the same run. */
    startReplacement: enqueueActions(({ context, enqueue }) => {
      const next = context.pendingRestart;
      if (!next) return;
      for (const o of toActiveAttempt(context, { type: 'SUPERSEDE' })) enqueue.emit(o);
      // The superseded attempt's callbacks will never be answered: its requests end with it.
      for (const requestId of context.pendingRequestIds) {
        enqueue.emit({
          type: 'send',
          to: { kind: 'runtime_request', id: requestId },
          event: { type: 'CANCEL', reason: 'its attempt was superseded by a steering restart' },
        });
      }
      const attemptOrdinal = context.attemptCount + 1;
      for (const o of attemptOutputs(
        context,
        next.attemptId,
        next.rootNodeId,
        attemptOrdinal,
        'steering_restart',
        next.text,
      ))
        enqueue.emit(o);
      enqueue.assign({
        activeAttemptId: next.attemptId,
        rootNodeId: next.rootNodeId,
        attemptCount: attemptOrdinal,
        pendingRestart: null,
        interruptRequested: false,
        pendingRequestIds: [],
      });
    }),
    /** The attempt on the failed provider thread ends failed; a `provider_recovery` attempt takes the run to the replacement. */
    startRecovery: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'PROVIDER_RECOVERY') return;
      for (const o of endTurnOutputs(context, 'failed')) enqueue.emit(o);
      enqueue.emit(
        domain('runtime.warning', {
          ...ref(context),
          message: `the provider thread could not be resumed (${event.reason}); the run goes on in a replacement seeded from Baton's record`,
        }),
      );
      const attemptOrdinal = context.attemptCount + 1;
      const moved = { ...context, providerThreadId: event.providerThreadId };
      for (const o of attemptOutputs(
        moved,
        event.attemptId,
        event.rootNodeId,
        attemptOrdinal,
        'provider_recovery',
        context.pendingRestart?.text ?? context.text,
      ))
        enqueue.emit(o);
      enqueue.assign({
        providerThreadId: event.providerThreadId,
        activeAttemptId: event.attemptId,
        rootNodeId: event.rootNodeId,
        attemptCount: attemptOrdinal,
        pendingRestart: null,
      });
    }),
    recordTurnTerminal: assign(({ context, event }) =>
      event.type === 'TURN_TERMINAL' ? { terminalStatus: event.status, error: event.error ?? null } : context,
    ),
    finish: enqueueActions(({ context, enqueue }) => {
      const status = context.terminalStatus ?? 'failed';
      enqueue.emit(
        domain('run.terminal', { ...ref(context), status, checkpointId: context.checkpointId, error: context.error }),
      );
      enqueue.emit({
        type: 'send',
        to: { kind: 'thread_supervisor', id: context.threadId },
        event: { type: 'RUN_FINISHED', runId: context.runId, status },
      });
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
