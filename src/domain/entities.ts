import { z } from 'zod';
import {
  CheckpointId,
  CheckpointScopeId,
  ContextHandoffId,
  ContextTransferId,
  MessageId,
  NodeId,
  PlanArtifactId,
  ProviderSessionId,
  ProviderThreadId,
  ProviderTurnId,
  RunAttemptId,
  RunId,
  RuntimeRequestId,
  ThreadId,
  TurnItemId,
} from './ids.js';
import {
  AttemptReason,
  CheckpointScopeKind,
  CheckpointStatus,
  ContextHandoffStatus,
  ContextHandoffStrategy,
  ContextTransferKind,
  ContextTransferStatus,
  Correlation,
  InteractionMode,
  NodeKind,
  NodeStatus,
  PlanArtifactKind,
  ProviderKind,
  ProviderSessionStatus,
  ProviderThreadStatus,
  ProviderTurnStatus,
  RunAttemptStatus,
  RunStatus,
  RuntimeMode,
  RuntimeRequestKind,
  RuntimeRequestStatus,
  ThreadStatus,
} from './statuses.js';

/**
 * The entities of DESIGN.md section 3 as durable records. "Provider ids are evidence,
 * app ids are identity": every key is an app id; native refs are plain strings held as
 * evidence and resolved through IdentityBinding.
 */

const Timestamp = z.number().int().nonnegative();

export const ThreadLineage = z.object({
  parentThreadId: ThreadId.nullable(),
  relationshipToParent: z.enum(['fork', 'subagent']).nullable(),
  rootThreadId: ThreadId,
});

export const Workspace = z.object({
  cwd: z.string().min(1),
  branch: z.string().nullable(),
  worktree: z.string().nullable(),
});

export const AppThread = z.object({
  id: ThreadId,
  title: z.string(),
  status: ThreadStatus,
  provider: ProviderKind,
  model: z.string().nullable(),
  runtimeMode: RuntimeMode,
  interactionMode: InteractionMode,
  /** The ACP agent the thread runs (provider `acp` only; null or absent on others: a thread recorded before it existed has none). */
  acpAgent: z.string().nullable().optional(),
  workspace: Workspace,
  activeProviderThreadId: ProviderThreadId.nullable(),
  lineage: ThreadLineage,
  createdAt: Timestamp,
});
export type AppThread = z.infer<typeof AppThread>;

export const Run = z.object({
  id: RunId,
  threadId: ThreadId,
  /** Assigned when the run starts, so counted runs are numbered densely 1..N. */
  ordinal: z.number().int().positive().nullable(),
  status: RunStatus,
  provider: ProviderKind,
  model: z.string().nullable(),
  providerThreadId: ProviderThreadId.nullable(),
  userMessageId: MessageId,
  rootNodeId: NodeId,
  activeAttemptId: RunAttemptId.nullable(),
  checkpointId: CheckpointId.nullable(),
  contextHandoffId: ContextHandoffId.nullable(),
  supersedesRunId: RunId.nullable(),
});
export type Run = z.infer<typeof Run>;

export const RunAttempt = z.object({
  id: RunAttemptId,
  runId: RunId,
  attemptOrdinal: z.number().int().positive(),
  rootNodeId: NodeId,
  providerThreadId: ProviderThreadId.nullable(),
  providerTurnId: ProviderTurnId.nullable(),
  reason: AttemptReason,
  status: RunAttemptStatus,
});
export type RunAttempt = z.infer<typeof RunAttempt>;

export const ExecutionNode = z.object({
  id: NodeId,
  runId: RunId,
  attemptId: RunAttemptId.nullable(),
  parentNodeId: NodeId.nullable(),
  kind: NodeKind,
  status: NodeStatus,
  countsForRun: z.boolean(),
  providerThreadId: ProviderThreadId.nullable(),
  providerTurnId: ProviderTurnId.nullable(),
  title: z.string().nullable(),
});
export type ExecutionNode = z.infer<typeof ExecutionNode>;

export const ProviderSession = z.object({
  id: ProviderSessionId,
  provider: ProviderKind,
  status: ProviderSessionStatus,
  reason: z.string().nullable(),
});
export type ProviderSession = z.infer<typeof ProviderSession>;

export const ProviderThreadOwner = z.discriminatedUnion('type', [
  z.object({ type: z.literal('thread'), threadId: ThreadId }),
  z.object({ type: z.literal('node'), nodeId: NodeId }),
]);

export const ProviderThread = z.object({
  id: ProviderThreadId,
  provider: ProviderKind,
  status: ProviderThreadStatus,
  nativeThreadRef: z.string().nullable(),
  resumeCursor: z.string().nullable(),
  owner: ProviderThreadOwner,
  coverage: z.object({
    firstRunOrdinal: z.number().int().nullable(),
    lastRunOrdinal: z.number().int().nullable(),
    handoffIds: z.array(ContextHandoffId),
  }),
  forkedFrom: ProviderThreadId.nullable(),
});
export type ProviderThread = z.infer<typeof ProviderThread>;

export const ProviderTurn = z.object({
  id: ProviderTurnId,
  providerThreadId: ProviderThreadId,
  nativeTurnRef: z.string().nullable(),
  scopedOrdinal: z.number().int().nonnegative(),
  status: ProviderTurnStatus,
});
export type ProviderTurn = z.infer<typeof ProviderTurn>;

export const ResponseCapability = z.discriminatedUnion('type', [
  z.object({ type: z.literal('live'), providerSessionId: ProviderSessionId }),
  z.object({ type: z.literal('not_resumable'), reason: z.string() }),
]);
export type ResponseCapability = z.infer<typeof ResponseCapability>;

export const RuntimeRequest = z.object({
  id: RuntimeRequestId,
  threadId: ThreadId,
  runId: RunId,
  nodeId: NodeId,
  kind: RuntimeRequestKind,
  status: RuntimeRequestStatus,
  responseCapability: ResponseCapability,
  prompt: z.string(),
  details: z.record(z.string(), z.unknown()),
});
export type RuntimeRequest = z.infer<typeof RuntimeRequest>;

export const SourcePoint = z.object({
  threadId: ThreadId,
  runId: RunId.nullable(),
  runOrdinal: z.number().int().nonnegative().nullable(),
  nodeId: NodeId.nullable(),
  checkpointId: CheckpointId.nullable(),
});

/** Context a provider thread is owed (a fork's history, a switch's runs): see context-transfer.machine.ts. */
export const ContextTransfer = z.object({
  id: ContextTransferId,
  threadId: ThreadId,
  kind: ContextTransferKind,
  status: ContextTransferStatus,
  /** Where the context comes from: a fork's source run, a merge-back's fork run, or (a switch) this thread. */
  sourcePoint: SourcePoint,
  /** A merge-back's base: the fork point the fork's work started from. */
  basePoint: SourcePoint.nullable(),
  fromProvider: ProviderKind.nullable(),
  toProvider: ProviderKind.nullable(),
  /** The handoff it was materialized into, and the run whose first prompt carried it. */
  handoffId: ContextHandoffId.nullable(),
  consumedByRunId: RunId.nullable(),
  reason: z.string().nullable(),
});
export type ContextTransfer = z.infer<typeof ContextTransfer>;

/** The exact text given to a provider thread in place of history: see context-handoff.machine.ts. */
export const ContextHandoff = z.object({
  id: ContextHandoffId,
  threadId: ThreadId,
  transferId: ContextTransferId.nullable(),
  /** `full`: every run it covers; `delta`: only those since the provider thread last took part. */
  strategy: ContextHandoffStrategy,
  status: ContextHandoffStatus,
  text: z.string(),
  /** The thread whose runs it tells (a portable fork's source, else this thread), and which. */
  fromThreadId: ThreadId,
  coveredRunOrdinals: z.array(z.number().int().positive()),
  omittedItems: z.number().int().nonnegative(),
  chars: z.number().int().nonnegative(),
  toProviderThreadId: ProviderThreadId.nullable(),
  /** The run whose first prompt carried it, and that attempt. */
  runId: RunId,
  attemptId: RunAttemptId,
  reason: z.string().nullable(),
});
export type ContextHandoff = z.infer<typeof ContextHandoff>;

export const CheckpointScope = z.object({
  id: CheckpointScopeId,
  threadId: ThreadId,
  kind: CheckpointScopeKind,
  parentScopeId: CheckpointScopeId.nullable(),
  runId: RunId.nullable(),
  nodeId: NodeId.nullable(),
});
export type CheckpointScope = z.infer<typeof CheckpointScope>;

export const DiffSummary = z.object({
  files: z.number().int().nonnegative(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
});

export const Checkpoint = z.object({
  id: CheckpointId,
  scopeId: CheckpointScopeId,
  scopeKind: CheckpointScopeKind,
  threadId: ThreadId,
  runId: RunId.nullable(),
  nodeId: NodeId.nullable(),
  runOrdinal: z.number().int().nonnegative().nullable(),
  status: CheckpointStatus,
  runStatus: RunStatus.nullable(),
  treeRef: z.string().nullable(),
  diff: DiffSummary.nullable(),
  /** Files left out of the capture because they exceed the size limit. */
  skippedFiles: z.array(z.object({ path: z.string(), bytes: z.number().int() })),
  reason: z.string().nullable(),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

export const ConversationMessage = z.object({
  id: MessageId,
  threadId: ThreadId,
  runId: RunId.nullable(),
  nodeId: NodeId.nullable(),
  role: z.enum(['user', 'assistant', 'system']),
  text: z.string(),
  completed: z.boolean(),
});
export type ConversationMessage = z.infer<typeof ConversationMessage>;

export const PlanStep = z.object({
  text: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed']),
});

/** One structured question the agent asks (a `questions` artifact holds them). */
export const Question = z.object({
  id: z.string(),
  header: z.string(),
  question: z.string(),
  options: z.array(z.object({ label: z.string(), description: z.string() })).nullable(),
  /** Whether an answer of one's own is taken besides the options (absent: the agent did not say). */
  isOther: z.boolean().optional(),
  /** The agent asks that the answer be kept out of sight (a password): the console masks it. */
  isSecret: z.boolean().optional(),
  /** The question must be answered (absent: the agent did not say). */
  required: z.boolean().optional(),
  /** Several options may be chosen, answered as a list (absent: the agent did not say). */
  multiple: z.boolean().optional(),
  /** An answer of one's own must be a number (`number`) or a whole number (`integer`); absent: any text. */
  answerType: z.enum(['number', 'integer']).optional(),
});
export type Question = z.infer<typeof Question>;

export const PlanArtifact = z.object({
  id: PlanArtifactId,
  threadId: ThreadId,
  runId: RunId,
  nodeId: NodeId,
  kind: PlanArtifactKind,
  text: z.string().nullable(),
  steps: z.array(PlanStep),
  /** A `questions` artifact's questions. */
  questions: z.array(Question).optional(),
  final: z.boolean(),
});
export type PlanArtifact = z.infer<typeof PlanArtifact>;

export const TurnItemKind = z.enum([
  'user_message',
  'assistant_message',
  'reasoning',
  'tool_call',
  'plan',
  'todo_list',
  'approval_request',
  'user_input_request',
  'subagent',
  'checkpoint',
  'system',
]);

/**
 * A turn item shows one thing and goes by its id: a message, a node, a plan, a request or a
 * checkpoint. An item that shows none of those (a context seed) has an id of its own.
 */
export const TurnItemRef = z
  .union([MessageId, NodeId, PlanArtifactId, RuntimeRequestId, CheckpointId, TurnItemId])
  .meta({
    description:
      'the id of the message, node, plan, request or checkpoint the item shows; a context seed has an id of its own',
  });
export type TurnItemRef = z.infer<typeof TurnItemRef>;

export const TurnItem = z.object({
  id: TurnItemRef,
  threadId: ThreadId,
  runId: RunId.nullable(),
  nodeId: NodeId.nullable(),
  kind: TurnItemKind,
  position: z.number().int().nonnegative(),
  status: z.string(),
  text: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type TurnItem = z.infer<typeof TurnItem>;

export const IdentityBinding = z.object({
  provider: ProviderKind,
  /** e.g. `session:S/thread:T` or `thread:T/turn:U`: native refs are only unique in a scope. */
  scope: z.string().min(1),
  nativeRef: z.string().min(1),
  appId: z.string().min(1),
  entityKind: z.string().min(1),
  correlation: Correlation,
});
export type IdentityBinding = z.infer<typeof IdentityBinding>;

/** The kinds of entity rows the store keeps; a snapshot of any other kind is refused. */
export const EntityKind = z.enum([
  'thread_supervisor',
  'run',
  'run_attempt',
  'execution_node',
  'provider_session',
  'provider_thread',
  'provider_turn',
  'runtime_request',
  'context_transfer',
  'context_handoff',
  'checkpoint_scope',
  'checkpoint',
]);
export type EntityKind = z.infer<typeof EntityKind>;

/** Where a fork came from: recorded at fork time, resolved lazily by the fork's first run. */
export const ForkOrigin = z.object({
  sourceThreadId: ThreadId,
  sourceRunId: RunId,
  sourceProvider: ProviderKind,
  sourceProviderThreadId: ProviderThreadId.nullable(),
  /** The attempt whose provider turn is the fork point. */
  sourceAttemptId: RunAttemptId.nullable(),
  /**
   * A fork from a subagent node: the child's own native thread (not the run's), forked at
   * its native turn `sourceNativeTurnRef` (null: as it stands). Absent for any other source.
   */
  sourceNativeThreadRef: z.string().optional(),
  sourceNativeTurnRef: z.string().nullable().optional(),
  /** The fork's transfer, pending until its first run resolves it (absent on forks made before transfers). */
  transferId: ContextTransferId.optional(),
});
export type ForkOrigin = z.infer<typeof ForkOrigin>;

/**
 * Where a fork thread was taken from, as its thread shows it: the source thread and the
 * run the fork point resolved to (a node or checkpoint source names its own too). A fork's
 * snapshot shows the source's history up to and including that run as inherited items.
 */
export const ForkedFrom = SourcePoint.extend({ runId: RunId, runOrdinal: z.number().int().positive() });
export type ForkedFrom = z.infer<typeof ForkedFrom>;
