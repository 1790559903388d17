import type { ErrorInfo } from '../domain/errors.js';
import type { CheckpointId, NodeId, ProviderThreadId, RunAttemptId, RuntimeRequestId } from '../domain/ids.js';
import type { AttemptReason, RunStatus } from '../domain/statuses.js';
import { domain, type MachineOutput, type MachineStep } from './outputs.js';
import type {
  PendingMergeBack,
  RunAttemptEvent,
  RunEvent,
  RunInput,
  RunSettings,
  TerminalStatus,
} from './entity-messages.js';

/**
 * What the run machine's actions emit and change, as pure functions of its context and the
 * event, so that `run.machine.ts` holds only the statechart and names these steps.
 */

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

/** One run action's work: the context it changes and what it emits. */
export type RunStep = MachineStep<RunContext>;

type RunEventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

export const ref = (c: RunContext) => ({ threadId: c.threadId, runId: c.runId });

/** The outputs that start one provider attempt of this run. */
export function attemptOutputs(
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
export function endTurnOutputs(c: RunContext, status: 'failed' | 'interrupted'): MachineOutput[] {
  return [
    ...toActiveAttempt(c, { type: 'END', status }),
    { type: 'send', to: { kind: 'execution_node', id: c.rootNodeId }, event: { type: 'END', status } },
  ];
}

/** The event to the active attempt (a live run always has one). */
export const toActiveAttempt = (c: RunContext, event: RunAttemptEvent): MachineOutput[] =>
  c.activeAttemptId ? [{ type: 'send', to: { kind: 'run_attempt', id: c.activeAttemptId }, event }] : [];

/** Why the run's live work ended, for what it cancels. */
export const endReason = (c: RunContext): string =>
  `run ${c.runId} ended ${c.terminalStatus ?? 'failed'}${c.error ? `: ${c.error.message}` : ''}`;

/** `start`: the baseline checkpoint, then the first attempt, on the provider the thread has now. */
export function startRun(context: RunContext, event: RunEventOf<'START'>): RunStep {
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
  return {
    assign: {
      provider,
      model,
      ordinal: event.ordinal,
      providerThreadId: event.providerThreadId,
      settings: event.settings,
      activeAttemptId: context.firstAttemptId,
      attemptCount: 1,
    },
    outputs: [
      // The workspace as it was before this run: checkpoint N-1, captured before the provider starts.
      {
        type: 'effect',
        effect: {
          kind: 'checkpoint.baseline',
          provider: null,
          runId: context.runId,
          nodeId: null,
          payload: { ordinal: event.ordinal - 1 },
        },
      },
      ...attemptOutputs(
        started,
        context.firstAttemptId,
        context.rootNodeId,
        1,
        event.reason,
        context.text,
        event.fork ?? null,
        event.handoff ? { ...event.handoff, transferId: event.transferId ?? null } : null,
        event.mergeBacks ?? [],
      ),
      domain('run.started', {
        ...ref(context),
        ordinal: event.ordinal,
        attemptId: context.firstAttemptId,
        providerThreadId: event.providerThreadId,
        ...(moved ? { provider, model } : {}),
      }),
    ],
  };
}

/** `requestCheckpoint`: the checkpoint of the workspace as the run left it. */
export const checkpointCapture = (context: RunContext): MachineOutput => ({
  type: 'effect',
  effect: {
    kind: 'checkpoint.capture',
    provider: null,
    runId: context.runId,
    nodeId: context.rootNodeId,
    payload: { ordinal: context.ordinal, runStatus: context.terminalStatus },
  },
});

/** The effect asking the provider to interrupt the active attempt's root turn (a steering restart says why). */
const interruptActiveTurn = (context: RunContext, reason?: 'steering_restart'): MachineOutput => ({
  type: 'effect',
  effect: {
    kind: 'provider.turn.interrupt',
    provider: context.provider,
    runId: context.runId,
    nodeId: context.rootNodeId,
    payload: reason ? { attemptId: context.activeAttemptId, reason } : { attemptId: context.activeAttemptId },
  },
});

/** `requestInterrupt`: ask the provider to interrupt the active attempt. */
export function requestInterrupt(context: RunContext, event: RunEventOf<'INTERRUPT'>): RunStep {
  return {
    assign: { interruptRequested: true, pendingRestart: null },
    outputs: [
      domain('run.interrupt-requested', { ...ref(context), holdQueue: event.holdQueue }),
      interruptActiveTurn(context),
    ],
  };
}

/** `interruptByPolicy`: stop the provider's session and end the run's turn interrupted. */
export function interruptByPolicy(context: RunContext, event: RunEventOf<'INTERRUPT'>): RunStep {
  return {
    assign: { interruptRequested: true, terminalStatus: 'interrupted' },
    outputs: [
      domain('run.interrupt-requested', { ...ref(context), holdQueue: event.holdQueue }),
      domain('runtime.warning', {
        ...ref(context),
        message: 'provider cannot interrupt: its session is stopped and the run ends interrupted by policy',
      }),
      {
        type: 'effect',
        effect: {
          kind: 'provider.session.stop',
          provider: context.provider,
          runId: context.runId,
          nodeId: null,
          payload: { reason: 'interrupt_unsupported' },
        },
      },
      ...endTurnOutputs(context, 'interrupted'),
    ],
  };
}

/** `endLiveWork`: cancel the provider's waiting effects for the run, and end its open requests. */
export function endLiveWork(context: RunContext): MachineOutput[] {
  const reason = endReason(context);
  const outputs: MachineOutput[] = [{ type: 'cancel_effects', runId: context.runId, reason }];
  // From here the run takes no more input: a message sent now waits as the next run.
  outputs.push({
    type: 'send',
    to: { kind: 'thread_supervisor', id: context.threadId },
    event: { type: 'RUN_ENDING', runId: context.runId },
  });
  for (const requestId of context.pendingRequestIds)
    outputs.push({
      type: 'send',
      to: { kind: 'runtime_request', id: requestId },
      event: { type: 'CANCEL', reason },
    });
  return outputs;
}

/** `steerNative`: the provider takes the steering text into the running turn. */
export const steerNative = (context: RunContext, event: RunEventOf<'STEER_NATIVE'>): MachineOutput[] => [
  domain('run.steered', { ...ref(context), messageId: event.messageId, strategy: 'native' }),
  {
    type: 'effect',
    effect: {
      kind: 'provider.turn.steer',
      provider: context.provider,
      runId: context.runId,
      nodeId: context.rootNodeId,
      payload: { attemptId: context.activeAttemptId, text: event.text, messageId: event.messageId },
    },
  },
];

/** `steerByRestart`: the active attempt is interrupted, to be replaced by one with the steering text. */
export function steerByRestart(context: RunContext, event: RunEventOf<'STEER_RESTART'>): RunStep {
  const text = `${context.pendingRestart?.text ?? context.text}\n\n${event.text}`;
  const assign = { pendingRestart: { attemptId: event.attemptId, rootNodeId: event.rootNodeId, text } };
  const outputs: MachineOutput[] = [
    domain('run.steered', { ...ref(context), messageId: event.messageId, strategy: 'restart' }),
  ];
  // A second steer while the first restart is pending only updates the replacement's text.
  if (context.pendingRestart) return { assign, outputs };
  outputs.push(interruptActiveTurn(context, 'steering_restart'));
  return { assign, outputs };
}

/** `startReplacement`: the interrupted attempt is superseded and `next` starts under the same run. */
export function startReplacement(context: RunContext, next: NonNullable<RunContext['pendingRestart']>): RunStep {
  const outputs: MachineOutput[] = [...toActiveAttempt(context, { type: 'SUPERSEDE' })];
  // The superseded attempt's callbacks will never be answered: its requests end with it.
  for (const requestId of context.pendingRequestIds) {
    outputs.push({
      type: 'send',
      to: { kind: 'runtime_request', id: requestId },
      event: { type: 'CANCEL', reason: 'its attempt was superseded by a steering restart' },
    });
  }
  const attemptOrdinal = context.attemptCount + 1;
  outputs.push(
    ...attemptOutputs(context, next.attemptId, next.rootNodeId, attemptOrdinal, 'steering_restart', next.text),
  );
  return {
    assign: {
      activeAttemptId: next.attemptId,
      rootNodeId: next.rootNodeId,
      attemptCount: attemptOrdinal,
      pendingRestart: null,
      interruptRequested: false,
      pendingRequestIds: [],
    },
    outputs,
  };
}

/** `startRecovery`: the attempt on the failed provider thread ends failed, a `provider_recovery` attempt starts on the replacement. */
export function startRecovery(context: RunContext, event: RunEventOf<'PROVIDER_RECOVERY'>): RunStep {
  const outputs: MachineOutput[] = [
    ...endTurnOutputs(context, 'failed'),
    domain('runtime.warning', {
      ...ref(context),
      message: `the provider thread could not be resumed (${event.reason}); the run goes on in a replacement seeded from Baton's record`,
    }),
  ];
  const attemptOrdinal = context.attemptCount + 1;
  const moved = { ...context, providerThreadId: event.providerThreadId };
  outputs.push(
    ...attemptOutputs(
      moved,
      event.attemptId,
      event.rootNodeId,
      attemptOrdinal,
      'provider_recovery',
      context.pendingRestart?.text ?? context.text,
    ),
  );
  return {
    assign: {
      providerThreadId: event.providerThreadId,
      activeAttemptId: event.attemptId,
      rootNodeId: event.rootNodeId,
      attemptCount: attemptOrdinal,
      pendingRestart: null,
    },
    outputs,
  };
}

/** `finish`: the run's terminal event, and word to the thread that its run is over. */
export function finishRun(context: RunContext): MachineOutput[] {
  const status = context.terminalStatus ?? 'failed';
  return [
    domain('run.terminal', { ...ref(context), status, checkpointId: context.checkpointId, error: context.error }),
    {
      type: 'send',
      to: { kind: 'thread_supervisor', id: context.threadId },
      event: { type: 'RUN_FINISHED', runId: context.runId, status },
    },
  ];
}
