import { z } from 'zod';
import { discriminatedUnionOf } from './discriminated-union.js';
import {
  AppThread,
  Checkpoint,
  ContextTransfer,
  ConversationMessage,
  ExecutionNode,
  ForkedFrom,
  PlanArtifact,
  ProviderSession,
  ProviderThread,
  ResponseCapability,
  RunAttempt,
  RuntimeRequest,
} from './entities.js';
import {
  CheckpointId,
  CommandId,
  ContextHandoffId,
  ContextTransferId,
  EventId,
  MessageId,
  NodeId,
  PlanArtifactId,
  ProviderThreadId,
  RunAttemptId,
  RunId,
  RuntimeRequestId,
  ThreadId,
  TurnItemId,
} from './ids.js';
import {
  ApprovalDecision,
  AttemptReason,
  DispatchMode,
  ContextHandoffStatus,
  ContextTransferStatus,
  NodeStatus,
  ProviderKind,
  ProviderThreadStatus,
  RunAttemptStatus,
  RunStatus,
} from './statuses.js';
import { ErrorInfo } from './errors.js';

/**
 * The domain events: Baton's own, provider-neutral vocabulary. The catalog maps each
 * event type to its payload schema; the union, the TypeScript types and the JSON Schema
 * are all derived from it.
 */

/** The finalization barrier's steps, in the only order they may happen. */
export const BarrierStep = z.enum(['flush_text', 'close_messages', 'finalize_plans', 'close_children', 'checkpoint']);
export type BarrierStep = z.infer<typeof BarrierStep>;
export const barrierSteps = BarrierStep.options;

const runRef = { threadId: ThreadId, runId: RunId };

/** A mode an agent runs its session in, by its own id, with its display name when known. */
export const AgentMode = z.object({ id: z.string().min(1), name: z.string().nullable() });
export type AgentMode = z.infer<typeof AgentMode>;

/**
 * Why Baton queued a run itself: absent on a run a message made, `task_wake` on the wake-up a
 * delegated task's end owes its parent, `agent_turn` on a turn the agent began of its own
 * (after a background task of its own ended: a subagent's node, or null for another task),
 * `plan_implementation` on the run `plan.implement` made for a proposed plan.
 */
export const RunOrigin = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('task_wake'),
    /** The task (its thread's id), the run that ended and how it ended. */
    taskId: ThreadId,
    taskRunId: RunId,
    status: RunStatus,
  }),
  z.object({
    kind: z.literal('agent_turn'),
    reason: z.enum(['subagent_notification', 'task_notification']),
    nodeId: NodeId.nullable(),
  }),
  z.object({ kind: z.literal('plan_implementation'), planId: PlanArtifactId }),
]);
export type RunOrigin = z.infer<typeof RunOrigin>;

/**
 * A delegated task's wake-up, as its parent keeps it (see src/actors/delegated-task-wake.ts):
 * `awaiting_end` (it runs), `owed` (it ended unread: the wake waits for the parent's run
 * `afterRunId` to end), `queued` (the wake-up run `wakeRunId` was queued), `read` (the
 * parent's agent read the end itself), `declined` (`delegate_task { wake: false }`), `dropped`
 * (a Stop of the parent, task_cancel, or a parent that could take no wake: `reason`).
 */
export const TaskWake = z.enum(['awaiting_end', 'owed', 'queued', 'read', 'declined', 'dropped']);
export type TaskWake = z.infer<typeof TaskWake>;
export const DelegatedTask = z.object({
  /** The task: the id of the thread delegated for it. */
  id: ThreadId,
  /** The delegating (parent) thread, and its run active then (null: delegated from outside any run). */
  threadId: ThreadId,
  delegatingRunId: RunId.nullable(),
  taskRunId: RunId,
  /** How the task's run ended; null while it runs. */
  endStatus: RunStatus.nullable(),
  wake: TaskWake,
  afterRunId: RunId.nullable(),
  wakeRunId: RunId.nullable(),
  reason: z.string().nullable(),
});
export type DelegatedTask = z.infer<typeof DelegatedTask>;

export const eventCatalog = {
  'thread.created': z.object({ thread: AppThread }),
  'thread.settings-updated': z.object({
    threadId: ThreadId,
    changes: AppThread.pick({
      title: true,
      provider: true,
      model: true,
      runtimeMode: true,
      interactionMode: true,
      acpAgent: true,
    }).partial(),
  }),
  'thread.archived': z.object({ threadId: ThreadId }),
  'thread.deleted': z.object({ threadId: ThreadId }),
  'thread.queue-held': z.object({
    threadId: ThreadId,
    held: z.boolean(),
    reason: z.enum(['interrupt', 'stop', 'send']),
  }),
  /** The thread is a fork: where it was taken from (in the commit that creates it, after `thread.created`). */
  'thread.forked': z.object({ threadId: ThreadId, forkedFrom: ForkedFrom }),
  'thread.fork-resolved': z.object({
    threadId: ThreadId,
    providerThreadId: ProviderThreadId,
    strategy: z.enum(['native_fork', 'portable_context']),
  }),
  /**
   * The agent's session now runs in `mode` (its own report: the mode it opened in, one Baton
   * set, or one it switched to itself). The thread's settings stay the user's: the next turn
   * sets the agent's mode from them again. `runId`: the run it came in, if any.
   */
  'thread.agent-mode-changed': z.object({ threadId: ThreadId, runId: RunId.nullable(), mode: AgentMode }),
  'thread.rolled-back': z.object({
    threadId: ThreadId,
    runOrdinal: z.number().int().nonnegative(),
    rolledBackRunIds: z.array(RunId),
  }),
  /**
   * Baton's own account of earlier runs (the portable context), given with the user's message
   * to a provider thread that lacks them: the reseed of a broken or divergent one, or a
   * portable fork's first run (told its source's runs). Auditable, never hidden.
   */
  'context.seeded': z.object({
    ...runRef,
    attemptId: RunAttemptId,
    providerThreadId: ProviderThreadId.nullable(),
    itemId: TurnItemId,
    strategy: z.enum(['full', 'delta']),
    coveredRunOrdinals: z.array(z.number().int().positive()),
    omittedItems: z.number().int().nonnegative(),
    chars: z.number().int().nonnegative(),
    text: z.string(),
    /** The thread whose runs it tells, when not this one: a portable fork's source. */
    fromThreadId: ThreadId.optional(),
    /** The handoff entity it is the text of, and the transfer that handoff materializes (absent before they existed). */
    handoffId: ContextHandoffId.optional(),
    transferId: ContextTransferId.nullable().optional(),
  }),
  /** What the provider's conversation holds after a rollback, checked against Baton's runs (a mismatch is also a warning). */
  'provider-thread.reconciled': z.object({
    threadId: ThreadId,
    providerThreadId: ProviderThreadId.nullable(),
    runOrdinal: z.number().int().nonnegative(),
    remainingTurnRefs: z.array(z.string()),
    /** Turns of kept runs the provider no longer has. */
    missingTurnRefs: z.array(z.string()),
    /** Turns the provider still has that Baton does not keep (rolled-back runs', or unknown ones). */
    unexpectedTurnRefs: z.array(z.string()),
  }),

  'message.created': z.object({ message: ConversationMessage }),
  'message.delta': z.object({ threadId: ThreadId, messageId: MessageId, delta: z.string() }),
  'message.completed': z.object({ threadId: ThreadId, messageId: MessageId, text: z.string() }),

  'run.queued': z.object({
    ...runRef,
    text: z.string(),
    provider: ProviderKind,
    model: z.string().nullable(),
    userMessageId: MessageId,
    rootNodeId: NodeId,
    dispatchMode: DispatchMode,
    /** Set on a run Baton queued itself (a delegated task's wake-up, the agent's own turn). */
    origin: RunOrigin.optional(),
  }),
  'run.started': z.object({
    ...runRef,
    ordinal: z.number().int().positive(),
    attemptId: RunAttemptId,
    providerThreadId: ProviderThreadId.nullable(),
    /** Set when the run starts on another provider than it was queued for (a switch while it waited). */
    provider: ProviderKind.optional(),
    model: z.string().nullable().optional(),
  }),
  'run.queue-reordered': z.object({ threadId: ThreadId, order: z.array(RunId) }),
  'run.status-changed': z.object({ ...runRef, from: RunStatus, to: RunStatus, reason: z.string().nullable() }),
  'run.interrupt-requested': z.object({ ...runRef, holdQueue: z.boolean() }),
  'run.interrupt-acknowledged': z.object({ ...runRef }),
  'run.steered': z.object({ ...runRef, messageId: MessageId, strategy: z.enum(['native', 'restart']) }),
  'run.diff-updated': z.object({ ...runRef, diff: z.string() }),
  'run.barrier-step': z.object({ ...runRef, step: BarrierStep }),
  'run.terminal': z.object({
    ...runRef,
    status: RunStatus,
    checkpointId: CheckpointId.nullable(),
    error: ErrorInfo.nullable(),
  }),

  'attempt.created': z.object({ threadId: ThreadId, attempt: RunAttempt }),
  'attempt.status-changed': z.object({
    ...runRef,
    attemptId: RunAttemptId,
    to: RunAttemptStatus,
    reason: AttemptReason.or(z.string()).nullable(),
  }),

  'node.created': z.object({ threadId: ThreadId, node: ExecutionNode }),
  'node.status-changed': z.object({ ...runRef, nodeId: NodeId, to: NodeStatus }),
  /** Streamed text of a node, appended: a reasoning summary, a command's output. */
  'node.output': z.object({ ...runRef, nodeId: NodeId, delta: z.string() }),
  /**
   * The provider's facts about a node's item: `text` (when not null) replaces its streamed
   * text, `detail` is merged, `title` (when given) renames the node.
   */
  'node.detail': z.object({
    ...runRef,
    nodeId: NodeId,
    text: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()),
    title: z.string().min(1).optional(),
  }),

  'plan.updated': z.object({ plan: PlanArtifact }),
  /** Streamed text of a proposed plan, appended. */
  'plan.delta': z.object({ ...runRef, planId: PlanArtifactId, delta: z.string() }),

  'runtime-request.opened': z.object({ request: RuntimeRequest }),
  /** The user answered; the request is `resolved` only once the provider takes the answer. */
  'runtime-request.answering': z.object({
    threadId: ThreadId,
    requestId: RuntimeRequestId,
    decision: ApprovalDecision.nullable(),
    answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).nullable(),
  }),
  'runtime-request.resolved': z.object({
    threadId: ThreadId,
    requestId: RuntimeRequestId,
    decision: ApprovalDecision.nullable(),
    answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).nullable(),
  }),
  'runtime-request.expired': z.object({ threadId: ThreadId, requestId: RuntimeRequestId, reason: z.string() }),
  'runtime-request.cancelled': z.object({ threadId: ThreadId, requestId: RuntimeRequestId, reason: z.string() }),
  'runtime-request.capability-changed': z.object({
    threadId: ThreadId,
    requestId: RuntimeRequestId,
    responseCapability: ResponseCapability,
  }),

  'provider-session.changed': z.object({ session: ProviderSession, threadId: ThreadId.nullable() }),
  'provider-thread.bound': z.object({ threadId: ThreadId, providerThread: ProviderThread }),
  'provider-thread.status-changed': z.object({
    threadId: ThreadId,
    providerThreadId: ProviderThreadId,
    to: ProviderThreadStatus,
    reason: z.string().nullable(),
  }),

  /** Context a provider thread is owed (a fork, a switch), recorded pending: see context-transfer.machine.ts. */
  'context-transfer.recorded': z.object({ transfer: ContextTransfer }),
  'context-transfer.status-changed': z.object({
    threadId: ThreadId,
    transferId: ContextTransferId,
    to: ContextTransferStatus,
    reason: z.string().nullable(),
    handoffId: ContextHandoffId.nullable(),
    runId: RunId.nullable(),
  }),
  'context-handoff.status-changed': z.object({
    threadId: ThreadId,
    handoffId: ContextHandoffId,
    to: ContextHandoffStatus,
    reason: z.string().nullable(),
  }),

  'checkpoint.recorded': z.object({ checkpoint: Checkpoint }),
  'checkpoint.stale': z.object({ threadId: ThreadId, checkpointIds: z.array(CheckpointId) }),
  'checkpoint.restored': z.object({
    threadId: ThreadId,
    checkpointId: CheckpointId.nullable(),
    changedPaths: z.array(z.string()),
    /** For a child scope: restored paths the parent run changed too. */
    parentOverlap: z.array(z.string()),
  }),

  /** A delegated task as its parent keeps it (its wake-up), written whole at each change. */
  'delegated-task.updated': z.object({ task: DelegatedTask }),

  'runtime.warning': z.object({ threadId: ThreadId, runId: RunId.nullable(), message: z.string() }),
} as const;

export type EventType = keyof typeof eventCatalog;
export const eventTypes = Object.keys(eventCatalog) as EventType[];
export type EventPayload<K extends EventType> = z.infer<(typeof eventCatalog)[K]>;

/** What a machine or command handler emits; the store adds `sequence` and `at`. */
export type NewEvent<K extends EventType = EventType> = {
  [T in K]: {
    eventId: EventId;
    type: T;
    threadId: ThreadId;
    payload: EventPayload<T>;
    commandId?: CommandId | null;
    causationId?: EventId | null;
  };
}[K];

const envelopeShape = {
  sequence: z.number().int().positive(),
  eventId: EventId,
  commandId: CommandId.nullable(),
  causationId: EventId.nullable(),
  threadId: ThreadId,
  at: z.number().int().nonnegative(),
};

const envelopes = eventTypes.map((type) =>
  z.object({ ...envelopeShape, type: z.literal(type), payload: eventCatalog[type] }),
);

/** The stored event: `{ sequence, eventId, commandId?, causationId?, threadId, type, payload, at }`. */
export const DomainEvent = discriminatedUnionOf('type', envelopes);
export type DomainEvent<K extends EventType = EventType> = {
  [T in K]: {
    sequence: number;
    eventId: EventId;
    commandId: CommandId | null;
    causationId: EventId | null;
    threadId: ThreadId;
    type: T;
    payload: EventPayload<T>;
    at: number;
  };
}[K];
