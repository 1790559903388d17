import { z } from 'zod';
import {
  AppThread,
  Checkpoint,
  ContextHandoff,
  ContextTransfer,
  ConversationMessage,
  ExecutionNode,
  ForkedFrom,
  PlanArtifact,
  ProviderSession,
  Run,
  RunAttempt,
  RuntimeRequest,
  ThreadLineage,
  TurnItem,
} from './entities.js';
import { ErrorInfo } from './errors.js';
import { AgentMode, DelegatedTask, RunOrigin } from './events.js';
import { NodeId, RunId, ThreadId } from './ids.js';
import { RunStatus } from './statuses.js';

/**
 * Read models, one table each. Every row has an id, the thread it belongs to, an order
 * key and its data; the data is validated by the projection's schema on every write.
 */

/** A runtime warning as the thread shows it; the event log keeps every one. */
export const ThreadWarning = z.object({
  runId: RunId.nullable(),
  message: z.string(),
  at: z.number().int().nonnegative(),
});
export type ThreadWarning = z.infer<typeof ThreadWarning>;
/** How many warnings a thread snapshot keeps (the newest). */
export const threadWarningLimit = 20;

/** Why a run failed, as a client may show it: code and message only (never details, a stack or env). */
export const RunError = ErrorInfo.pick({ code: true, message: true });
export type RunError = z.infer<typeof RunError>;

export const ThreadShell = AppThread.extend({
  /** With, for a fork, where it was taken from (`thread.forked`); null for any other thread, or one recorded before. */
  lineage: ThreadLineage.extend({ forkedFrom: ForkedFrom.nullable().default(null) }),
  /** Always on the row: null for a thread that runs no ACP agent (or was recorded before the setting). */
  acpAgent: z.string().nullable().default(null),
  /** The mode the thread's agent last said it runs in (ACP session modes); null until one says. Not a setting. */
  agentMode: AgentMode.nullable().default(null),
  runCount: z.number().int().nonnegative(),
  activeRunId: RunId.nullable(),
  activeRunStatus: RunStatus.nullable(),
  queuedRunCount: z.number().int().nonnegative(),
  queueHeld: z.boolean(),
  pendingRequestCount: z.number().int().nonnegative(),
  turnItemCount: z.number().int().nonnegative(),
  /** The newest runtime warnings, newest last (at most `threadWarningLimit`). */
  warnings: z.array(ThreadWarning).max(threadWarningLimit).default([]),
  /** How many activities the thread has had: the next one's position. */
  activityCount: z.number().int().nonnegative().default(0),
  updatedAt: z.number().int().nonnegative(),
});
export type ThreadShell = z.infer<typeof ThreadShell>;

export const RunView = Run.extend({
  attempts: z.array(RunAttempt),
  /** The provider's latest unified diff of what the run changed, when it reports one. */
  diff: z.string().nullable(),
  queuePosition: z.number().int().nullable(),
  interruptRequested: z.boolean(),
  /** Why the run ended failed or interrupted, when it says. */
  error: RunError.nullable().default(null),
  /** Set on a run Baton queued itself: a delegated task's wake-up (absent on a run a message made). */
  origin: RunOrigin.optional(),
});
export type RunView = z.infer<typeof RunView>;

export const ProviderSessionView = ProviderSession.extend({ threadId: ThreadId.nullable() });

/** A graph node with the provider's facts about its item (exit code, duration, files, result). */
export const GraphNode = ExecutionNode.extend({ detail: z.record(z.string(), z.unknown()).optional() });
export type GraphNode = z.infer<typeof GraphNode>;

export const ActivityKind = z.enum([
  'tool.started',
  'tool.completed',
  'approval.requested',
  'approval.resolved',
  'user_input.requested',
  'user_input.resolved',
  'plan.updated',
  'checkpoint.captured',
  'subagent.started',
  'subagent.completed',
  'runtime.warning',
]);
export type ActivityKind = z.infer<typeof ActivityKind>;

/**
 * One thing that happened in the execution graph, as an activity feed shows it: keyed by
 * run and node so a client can group it, in the order it happened (`position`).
 */
export const Activity = z.object({
  id: z.string().min(1),
  threadId: ThreadId,
  runId: RunId.nullable(),
  nodeId: NodeId.nullable(),
  kind: ActivityKind,
  /** What it was about: a command, a request's prompt, a plan's first line, a warning. */
  title: z.string(),
  /** How it ended or stands, when that means something (a tool's or request's status, a checkpoint's). */
  status: z.string().nullable(),
  position: z.number().int().nonnegative(),
  at: z.number().int().nonnegative(),
});
export type Activity = z.infer<typeof Activity>;

/** A turn item as the thread shows it: one of a rolled-back run stays on record but leaves the visible conversation. */
export const TurnItemView = TurnItem.extend({
  rolledBack: z.boolean().default(false),
  /** Set (never stored) on the items a fork's snapshot shows from its source's history, up to the fork point. */
  inherited: z.boolean().optional(),
});
export type TurnItemView = z.infer<typeof TurnItemView>;
export const MessageView = ConversationMessage.extend({ rolledBack: z.boolean().default(false) });
export type MessageView = z.infer<typeof MessageView>;

export const projectionSchemas = {
  threads: ThreadShell,
  runs: RunView,
  messages: MessageView,
  turn_items: TurnItemView,
  graph_nodes: GraphNode,
  requests: RuntimeRequest,
  sessions: ProviderSessionView,
  checkpoints: Checkpoint,
  plans: PlanArtifact,
  activities: Activity,
  context_transfers: ContextTransfer,
  context_handoffs: ContextHandoff,
  /** The tasks a thread delegated, each with its wake-up (keyed by the task's id, on the parent). */
  delegated_tasks: DelegatedTask,
} as const;

export type ProjectionName = keyof typeof projectionSchemas;
export const projectionNames = Object.keys(projectionSchemas) as ProjectionName[];
export type ProjectionRow<P extends ProjectionName> = z.infer<(typeof projectionSchemas)[P]>;

/**
 * The text fields that streaming grows: a message's, turn item's or plan's `text`, and a
 * tool item's `data.output`. A delta to one of them is stored as an appended chunk, so
 * its cost does not grow with the text (issue 12).
 */
export const appendFields = ['text', 'data.output'] as const;
export type AppendField = (typeof appendFields)[number];
export const appendableProjections = ['messages', 'turn_items', 'plans'] as const;
export type AppendableProjection = (typeof appendableProjections)[number];

/** One change to a projection table, carried by a commit unit. */
export type ProjectionChange =
  | {
      [P in ProjectionName]:
        | { projection: P; op: 'upsert'; id: string; threadId: string | null; ord: number; row: ProjectionRow<P> }
        | { projection: P; op: 'delete'; id: string };
    }[ProjectionName]
  | { projection: AppendableProjection; op: 'append'; id: string; field: AppendField; text: string };

/**
 * A row with `text` appended to `field`: what a stored chunk means, used both where a
 * delta is projected and where chunks are read back, so the two never disagree.
 */
export function appendToRow<R>(row: R, field: AppendField, text: string): R {
  const r = row as { text?: string | null; data?: Record<string, unknown> };
  if (field === 'text') return { ...row, text: (r.text ?? '') + text };
  return { ...row, data: { ...r.data, output: String(r.data?.output ?? '') + text } };
}
