import type { ForkOrigin } from '../domain/entities.js';
import type { ErrorInfo } from '../domain/errors.js';
import type { RunOrigin } from '../domain/events.js';
import type {
  CheckpointId,
  ContextHandoffId,
  ContextTransferId,
  MessageId,
  NodeId,
  ProviderSessionId,
  ProviderThreadId,
  RunAttemptId,
  RunId,
  RuntimeRequestId,
  ThreadId,
  TurnItemId,
} from '../domain/ids.js';
import type {
  ApprovalDecision,
  AttemptReason,
  ContextHandoffStrategy,
  ContextTransferKind,
  DispatchMode,
  InteractionMode,
  NodeKind,
  ProviderKind,
  RuntimeMode,
  RuntimeRequestKind,
} from '../domain/statuses.js';
import type { Answers } from '../domain/answers.js';

/**
 * What each entity machine is started with (its input) and what it takes (its events),
 * apart from the machines, so the outputs that spawn an entity or send it an event are
 * typed per entity kind (see `outputs.ts`) without a machine importing another.
 * Ids are branded: an event carries the ids of its payload as their families' types.
 */

/** How a provider turn ended. */
export type TurnEndStatus = 'completed' | 'interrupted' | 'failed';
/** How a node ended: a turn's ends, or cancelled (a request withdrawn, a node closed by the barrier). */
export type NodeEndStatus = TurnEndStatus | 'cancelled';
/** How a run ended: its root turn's end, or cancelled before it started. */
export type TerminalStatus = TurnEndStatus | 'cancelled';
/** The in-memory steps of a run's finalization barrier, in order; the checkpoint follows them. */
export type BarrierStep = 'flush_text' | 'close_messages' | 'finalize_plans' | 'close_children';

// ---- thread supervisor ----

/** The turn capabilities the dispatch policy reads; the adapter declares them. */
export interface DispatchCapabilities {
  supportsActiveSteering: boolean;
  supportsSteeringByInterruptRestart: boolean;
  supportsInterrupt: boolean;
  canRollbackThread: boolean;
}

export interface ThreadSettings {
  title: string;
  provider: ProviderKind;
  model: string | null;
  runtimeMode: RuntimeMode;
  interactionMode: InteractionMode;
  /** The ACP agent (provider `acp` only); optional because a thread stored before it existed has none. */
  acpAgent?: string | null;
}

export interface ThreadSupervisorInput extends ThreadSettings {
  threadId: ThreadId;
  cwd: string;
  parentThreadId: ThreadId | null;
  relationshipToParent: 'fork' | 'subagent' | null;
  rootThreadId: ThreadId;
  providerThreadId: ProviderThreadId;
  capabilities: DispatchCapabilities;
  createdAt: number;
  forkOrigin?: ForkOrigin | null;
}

export type ThreadSupervisorEvent =
  | {
      type: 'SEND';
      runId: RunId;
      messageId: MessageId;
      rootNodeId: NodeId;
      attemptId: RunAttemptId;
      text: string;
      mode: DispatchMode;
      provider: ProviderKind;
      model: string | null;
      targetRunId: RunId | null;
      /** Set when Baton queues the run itself (a delegated task's wake-up, the agent's own turn). */
      origin?: RunOrigin;
    }
  | { type: 'RUN_ENDING'; runId: RunId }
  | { type: 'RUN_FINISHED'; runId: RunId; status: TerminalStatus }
  | { type: 'INTERRUPT'; runId: RunId; holdQueue: boolean }
  | { type: 'STOP' }
  | { type: 'REORDER'; order: RunId[] }
  | { type: 'CANCEL_QUEUED'; runId: RunId; reason?: string }
  | { type: 'PROMOTE'; runId: RunId; messageId: MessageId; text: string; attemptId: RunAttemptId; rootNodeId: NodeId }
  | {
      type: 'PROVIDER_THREAD_FAILED';
      reason: string;
      failedProviderThreadId: ProviderThreadId;
      replacementProviderThreadId: ProviderThreadId;
      /** Ids for the active run's recovery attempt on the replacement, if it takes one. */
      recoveryAttemptId: RunAttemptId;
      recoveryRootNodeId: NodeId;
    }
  /** A fork's work to tell the next run (`thread.merge_back`): its transfer, recorded pending. */
  | { type: 'MERGE_BACK'; transfer: ContextTransferInput; throughOrdinal: number }
  | {
      type: 'SETTINGS_UPDATE';
      changes: Partial<ThreadSettings>;
      /** A provider switch: the new provider's dispatch flags, and an id for its provider thread should it need a new one. */
      switch?: ProviderSwitch;
    }
  | { type: 'ROLLBACK'; runOrdinal: number; replacementProviderThreadId?: ProviderThreadId }
  | { type: 'ARCHIVE' }
  | { type: 'DELETE' };

// ---- run ----

export interface RunInput {
  runId: RunId;
  threadId: ThreadId;
  provider: ProviderKind;
  model: string | null;
  userMessageId: MessageId;
  rootNodeId: NodeId;
  firstAttemptId: RunAttemptId;
  text: string;
}

/** The thread's settings when the run started: every attempt of the run asks the provider for them. */
/** What a provider switch needs beside the settings: see the supervisor's `startNext`. */
export interface ProviderSwitch {
  capabilities: DispatchCapabilities;
  newProviderThreadId: ProviderThreadId;
  /** The transfer recorded for it, pending until the next run starts. */
  transferId: ContextTransferId;
  /** The user asked for a clean context: the provider's earlier thread is not taken up again. */
  clean: boolean;
}

/** A fork's work waiting to be told to its parent's next run. */
export interface PendingMergeBack {
  transferId: ContextTransferId;
  fromThreadId: ThreadId;
  throughOrdinal: number;
}

/** A provider thread of this app thread that is not the current one, kept to return to. */
export interface ParkedProviderThread {
  provider: ProviderKind;
  /** The ACP agent whose session it is (optional: absent for other providers, and before agent switches existed). */
  acpAgent?: string | null;
  providerThreadId: ProviderThreadId;
  /** The last run ordinal its conversation holds (run natively there, or told through a handoff). */
  toldThrough: number;
}

export interface RunSettings {
  runtimeMode: RuntimeMode;
  interactionMode: InteractionMode;
  /** Optional: a run stored before the setting existed started without it. */
  acpAgent?: string | null;
}

export type RunEvent =
  | {
      type: 'START';
      ordinal: number;
      providerThreadId: ProviderThreadId | null;
      reason: AttemptReason;
      settings: RunSettings;
      fork?: Record<string, unknown> | null;
      /** A handoff to a provider thread that lacks runs: it is told the runs after `sinceOrdinal` (0: all). */
      handoff?: { sinceOrdinal: number } | null;
      /** The switch's transfer the handoff materializes. */
      transferId?: ContextTransferId | null;
      /** Forks' work merged back since the last run started, told with this one. */
      mergeBacks?: PendingMergeBack[];
      /** The thread's provider and model now (optional: absent before switches existed); see the run's `start`. */
      provider?: ProviderKind;
      model?: string | null;
    }
  | { type: 'TURN_STARTED'; attemptId: RunAttemptId }
  | { type: 'TURN_TERMINAL'; attemptId: RunAttemptId; nodeId: NodeId; status: TurnEndStatus; error?: ErrorInfo | null }
  | { type: 'REQUEST_OPENED'; requestId: RuntimeRequestId }
  | { type: 'REQUEST_CLOSED'; requestId: RuntimeRequestId }
  | { type: 'INTERRUPT'; holdQueue: boolean; supportsInterrupt: boolean }
  | { type: 'INTERRUPT_ACKNOWLEDGED' }
  | { type: 'STEER_NATIVE'; messageId: MessageId; text: string }
  | { type: 'STEER_RESTART'; messageId: MessageId; text: string; attemptId: RunAttemptId; rootNodeId: NodeId }
  | { type: 'PROVIDER_LOST'; status: 'failed' | 'interrupted'; error: ErrorInfo }
  /** The provider thread could not be resumed: the run goes on in a replacement, seeded from Baton's record. */
  | {
      type: 'PROVIDER_RECOVERY';
      failedProviderThreadId: ProviderThreadId;
      providerThreadId: ProviderThreadId;
      attemptId: RunAttemptId;
      rootNodeId: NodeId;
      reason: string;
    }
  | { type: 'BARRIER_STEP_DONE'; step: BarrierStep }
  | { type: 'CHECKPOINT_RECORDED'; checkpointId: CheckpointId | null; status: 'ready' | 'missing' | 'error' }
  | { type: 'CANCEL'; reason: string }
  | { type: 'ROLLED_BACK' };

// ---- run attempt ----

export interface RunAttemptInput {
  attemptId: RunAttemptId;
  runId: RunId;
  threadId: ThreadId;
  attemptOrdinal: number;
  rootNodeId: NodeId;
  reason: AttemptReason;
  providerThreadId: ProviderThreadId | null;
}

export type RunAttemptEvent =
  | { type: 'TURN_STARTED'; attemptId: RunAttemptId }
  | { type: 'TURN_TERMINAL'; attemptId: RunAttemptId; nodeId: NodeId; status: TurnEndStatus }
  | { type: 'END'; status: TurnEndStatus }
  | { type: 'SUPERSEDE' }
  | { type: 'CANCEL' };

// ---- execution node ----

export interface ExecutionNodeInput {
  nodeId: NodeId;
  runId: RunId;
  threadId: ThreadId;
  attemptId: RunAttemptId | null;
  parentNodeId: NodeId | null;
  kind: NodeKind;
  countsForRun: boolean;
  title: string | null;
}

export type ExecutionNodeEvent =
  | { type: 'START' }
  | { type: 'WAIT' }
  | { type: 'RESUME' }
  | { type: 'END'; status: NodeEndStatus }
  /** The barrier closes a node the provider left open once its run is over. */
  | { type: 'CLOSE'; status: NodeEndStatus }
  | { type: 'ROLLED_BACK' };

// ---- runtime request ----

export interface RuntimeRequestInput {
  requestId: RuntimeRequestId;
  threadId: ThreadId;
  runId: RunId;
  nodeId: NodeId;
  /** Whose callback it is (its run's provider): the answer goes back to that provider alone. */
  provider: ProviderKind;
  kind: RuntimeRequestKind;
  prompt: string;
  details: Record<string, unknown>;
  providerSessionId: ProviderSessionId;
  /** When an unanswered request expires; null waits for ever. Time arrives as data. */
  expiresAt: number | null;
  /** Asked by work that outlives its run (a background subagent): not the run's to wait on or end. */
  outlivesRun?: boolean;
}

export type { Answers };

export type RuntimeRequestEvent =
  | { type: 'RESPOND'; decision: ApprovalDecision | null; answers: Answers | null }
  /** The respond effect reports: the provider took the answer, or could not. */
  | { type: 'ANSWER_DELIVERED' }
  | { type: 'ANSWER_FAILED'; reason: string }
  | { type: 'CALLBACK_LOST'; reason: string }
  | { type: 'EXPIRE'; reason: string }
  | { type: 'CANCEL'; reason: string }
  /** Its asker moved to the background: the request outlives its run from now on. */
  | { type: 'OUTLIVE_RUN' };

// ---- provider session ----

export interface ProviderSessionInput {
  sessionId: ProviderSessionId;
  threadId: ThreadId | null;
  provider: ProviderKind;
}

export type ProviderSessionEvent =
  | { type: 'READY' }
  | { type: 'BUSY' }
  | { type: 'WAITING' }
  | { type: 'IDLE' }
  | { type: 'STOPPED'; reason: string }
  | { type: 'FAILED'; reason: string }
  | { type: 'RESTART' };

// ---- provider thread ----

export interface ProviderThreadInput {
  providerThreadId: ProviderThreadId;
  threadId: ThreadId;
  provider: ProviderKind;
  forkedFrom: ProviderThreadId | null;
  /** Who it belongs to: a subagent node for a child's own thread; absent (older rows too), the app thread. */
  owner?: { type: 'thread'; threadId: ThreadId } | { type: 'node'; nodeId: NodeId };
}

export type ProviderThreadEvent =
  | { type: 'LOADED'; nativeThreadRef: string; resumeCursor?: string | null }
  | { type: 'TURN_BEGAN'; runOrdinal: number | null }
  | { type: 'TURN_ENDED' }
  | { type: 'UNLOADED'; reason: string }
  | { type: 'FAILED'; reason: string }
  | { type: 'ARCHIVE' }
  | { type: 'CLOSE' };

// ---- context transfer and handoff ----

export interface ContextTransferInput {
  transferId: ContextTransferId;
  threadId: ThreadId;
  kind: ContextTransferKind;
  /** A fork's source run (and its thread); for a switch, this thread and the last run before it. */
  sourceThreadId: ThreadId;
  sourceRunId: RunId | null;
  sourceRunOrdinal: number | null;
  fromProvider: ProviderKind | null;
  toProvider: ProviderKind | null;
  /** A merge-back's base: the fork point (in this thread) the fork started from. */
  basePoint?: { runId: RunId; runOrdinal: number | null } | null;
}

export type ContextTransferEvent =
  | { type: 'MATERIALIZED'; handoffId: ContextHandoffId }
  | { type: 'CONSUMED'; runId: RunId }
  | { type: 'RESOLVED_NATIVE' }
  | { type: 'SUPERSEDE'; reason: string };

export interface ContextHandoffInput {
  handoffId: ContextHandoffId;
  threadId: ThreadId;
  transferId: ContextTransferId | null;
  strategy: ContextHandoffStrategy;
  text: string;
  fromThreadId: ThreadId;
  coveredRunOrdinals: number[];
  omittedItems: number;
  providerThreadId: ProviderThreadId | null;
  runId: RunId;
  attemptId: RunAttemptId;
  /** The conversation item that shows the text in the thread. */
  itemId: TurnItemId;
}

export type ContextHandoffEvent = { type: 'SUPERSEDE'; reason: string };

/** The id of each kind of entity that runs a machine. */
export interface EntityIds {
  thread_supervisor: ThreadId;
  run: RunId;
  run_attempt: RunAttemptId;
  execution_node: NodeId;
  runtime_request: RuntimeRequestId;
  provider_session: ProviderSessionId;
  provider_thread: ProviderThreadId;
  context_transfer: ContextTransferId;
  context_handoff: ContextHandoffId;
}

/** The kinds of entity that run a machine. */
export type MachineKind = keyof EntityIds;

/** What each kind of entity is started with. */
export interface EntityInputs {
  thread_supervisor: ThreadSupervisorInput;
  run: RunInput;
  run_attempt: RunAttemptInput;
  execution_node: ExecutionNodeInput;
  runtime_request: RuntimeRequestInput;
  provider_session: ProviderSessionInput;
  provider_thread: ProviderThreadInput;
  context_transfer: ContextTransferInput;
  context_handoff: ContextHandoffInput;
}

/** What each kind of entity takes. */
export interface EntityEvents {
  thread_supervisor: ThreadSupervisorEvent;
  run: RunEvent;
  run_attempt: RunAttemptEvent;
  execution_node: ExecutionNodeEvent;
  runtime_request: RuntimeRequestEvent;
  provider_session: ProviderSessionEvent;
  provider_thread: ProviderThreadEvent;
  context_transfer: ContextTransferEvent;
  context_handoff: ContextHandoffEvent;
}
