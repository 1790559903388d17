import type { ForkOrigin } from '../domain/entities.js';
import type { RunId } from '../domain/ids.js';
import type { PendingMergeBack, RunEvent, ThreadSupervisorEvent, ThreadSupervisorInput } from './entity-messages.js';
import { domain, type MachineOutput, type MachineStep } from './outputs.js';
import { providerMove, withSeededRun, type SwitchState } from './provider-switching.js';

/**
 * How the thread supervisor's runs come and go (pure: the machine applies `assign` and
 * emits `outputs`): a message becomes a run at the end of the queue, the next queued run
 * starts in the provider thread the switch state chooses, and a message steers the active run.
 */

/** What the supervisor keeps about the thread's runs: all its context but the thread's status. */
export interface ThreadRunsState extends ThreadSupervisorInput, SwitchState {
  /** Forks' work merged back, waiting for the next run to tell it (optional: absent before merge-back existed). */
  pendingMergeBacks?: PendingMergeBack[];
  queue: RunId[];
  activeRunId: RunId | null;
  /** The active run is finalizing: it can no longer be steered, so a new message queues. */
  activeRunEnding: boolean;
  /** Run ids of counted runs; index + 1 is the ordinal. */
  countedRunIds: RunId[];
  queueHeld: boolean;
  /** The provider thread failed: the next run reseeds a replacement through recovery. */
  reseedNext: boolean;
  /** A fork not yet resolved: its first run takes it to the provider. */
  pendingFork: ForkOrigin | null;
}

export type RunsStep = MachineStep<ThreadRunsState>;

export type SendMessage = Extract<ThreadSupervisorEvent, { type: 'SEND' }>;
type PromoteMessage = Extract<ThreadSupervisorEvent, { type: 'PROMOTE' }>;

/**
 * A message that names the run it steers (`targetRunId`) reaches that run or nothing: the
 * run must still be active and not finalizing, else the user's steer would land on another
 * run or start one of its own.
 */
export const targetsActiveRun = (
  context: Pick<ThreadRunsState, 'activeRunId' | 'activeRunEnding'>,
  targetRunId: RunId | null,
): boolean => targetRunId === null || (targetRunId === context.activeRunId && !context.activeRunEnding);

/** What a message that becomes a run emits (its user message, the run, its queued record), and the queue it leaves. */
export function newRun(context: Pick<ThreadRunsState, 'threadId' | 'queue'>, event: SendMessage): RunsStep {
  return {
    outputs: [
      domain('message.created', {
        message: {
          id: event.messageId,
          threadId: context.threadId,
          runId: event.runId,
          nodeId: null,
          role: 'user',
          text: event.text,
          completed: true,
        },
      }),
      {
        type: 'spawn',
        entity: {
          kind: 'run',
          id: event.runId,
          input: {
            runId: event.runId,
            threadId: context.threadId,
            provider: event.provider,
            model: event.model,
            userMessageId: event.messageId,
            rootNodeId: event.rootNodeId,
            firstAttemptId: event.attemptId,
            text: event.text,
          },
        },
      },
      domain('run.queued', {
        threadId: context.threadId,
        runId: event.runId,
        text: event.text,
        provider: event.provider,
        model: event.model,
        userMessageId: event.messageId,
        rootNodeId: event.rootNodeId,
        dispatchMode: event.mode,
        ...(event.origin ? { origin: event.origin } : {}),
      }),
    ],
    assign: { queue: [...context.queue, event.runId] },
  };
}

/** The first queued run becomes the active one, counted, in the provider thread it goes to; null with none queued. */
export function startNextRun(context: ThreadRunsState): RunsStep | null {
  const [runId, ...rest] = context.queue;
  if (!runId) return null;
  const ordinal = context.countedRunIds.length + 1;
  const move = providerMove(context, ordinal);
  const seededRuns = withSeededRun(context, move, ordinal);
  return {
    assign: {
      queue: rest,
      activeRunId: runId,
      activeRunEnding: false,
      countedRunIds: [...context.countedRunIds, runId],
      reseedNext: false,
      pendingFork: null,
      pendingMergeBacks: [],
      ...move.assign,
      seededRuns,
    },
    outputs: [
      ...move.outputs,
      {
        type: 'send',
        to: { kind: 'run', id: runId },
        event: {
          type: 'START',
          ordinal,
          providerThreadId: move.providerThreadId,
          reason: move.handoff
            ? 'provider_handoff'
            : context.reseedNext && move.providerThreadId === context.providerThreadId
              ? 'provider_recovery'
              : 'initial',
          fork: context.pendingFork,
          handoff: move.handoff,
          transferId: move.transferId,
          mergeBacks: context.pendingMergeBacks ?? [],
          // The settings as they are now: a change made while the run waited in the queue applies to it.
          provider: context.provider,
          model: context.model,
          settings: {
            runtimeMode: context.runtimeMode,
            interactionMode: context.interactionMode,
            acpAgent: context.acpAgent,
          },
        },
      },
    ],
  };
}

/** A message steering the active run `runId`: a sent one is recorded as its user message first. */
export function steerRun(
  context: Pick<ThreadRunsState, 'threadId'>,
  runId: RunId,
  event: SendMessage | PromoteMessage,
  strategy: 'native' | 'restart',
): MachineOutput[] {
  const outputs: MachineOutput[] = [];
  if (event.type === 'SEND') {
    outputs.push(
      domain('message.created', {
        message: {
          id: event.messageId,
          threadId: context.threadId,
          runId,
          nodeId: null,
          role: 'user',
          text: event.text,
          completed: true,
        },
      }),
    );
  }
  const steer: RunEvent =
    strategy === 'native'
      ? { type: 'STEER_NATIVE', messageId: event.messageId, text: event.text }
      : {
          type: 'STEER_RESTART',
          messageId: event.messageId,
          text: event.text,
          attemptId: event.attemptId,
          rootNodeId: event.rootNodeId,
        };
  outputs.push({ type: 'send', to: { kind: 'run', id: runId }, event: steer });
  return outputs;
}
