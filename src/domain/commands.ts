import { z } from 'zod';
import { discriminatedUnionOf } from './discriminated-union.js';
import {
  CheckpointId,
  CommandId,
  NewThreadId,
  NodeId,
  PlanArtifactId,
  ProviderThreadId,
  RunId,
  RuntimeRequestId,
  ThreadId,
} from './ids.js';
import { ApprovalDecision, DispatchMode, InteractionMode, ProviderKind, RuntimeMode } from './statuses.js';

/**
 * The commands of the Socket.IO contract (DESIGN.md section 6). Every command targets
 * app ids and carries a client `commandId`, which makes it idempotent.
 */

const base = { commandId: CommandId };
const command = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ ...base, type: z.literal(type), ...shape }).strict();

export const ForkSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run'), threadId: ThreadId, runId: RunId }),
  z.object({ type: z.literal('node'), nodeId: NodeId }),
  z.object({ type: z.literal('checkpoint'), threadId: ThreadId, checkpointId: CheckpointId }),
  z.object({
    type: z.literal('provider_thread'),
    threadId: ThreadId,
    providerThreadId: ProviderThreadId,
    /** A native turn id on it, as its provider reported it: the fork is taken at the run of that turn (default: its last finished run). */
    providerTurnId: z.string().min(1).max(500).optional(),
  }),
]);
export type ForkSource = z.infer<typeof ForkSource>;

/** The ACP agent a thread with provider `acp` runs: one of the names the ACP provider runs (checked by the handler). */
const AcpAgentName = z.string().min(1).max(200);

export const commandSchemas = {
  'thread.create': command('thread.create', {
    threadId: NewThreadId.optional(),
    title: z.string().max(500).optional(),
    cwd: z.string().min(1),
    provider: ProviderKind.optional(),
    model: z.string().min(1).optional(),
    runtimeMode: RuntimeMode.optional(),
    interactionMode: InteractionMode.optional(),
    acpAgent: AcpAgentName.optional(),
    /**
     * Delegation: the new thread is a subagent of this thread (lineage `subagent`, in its
     * tree). Its modes default to the parent's, and a broader one is refused.
     */
    parentThreadId: ThreadId.optional(),
  }),
  'thread.message.send': command('thread.message.send', {
    threadId: ThreadId,
    text: z.string().min(1).max(1_000_000),
    dispatchMode: DispatchMode.optional(),
    targetRunId: RunId.optional(),
    /** Moves the thread to this provider from this message's run on (a switch: see `thread.settings.update`). */
    provider: ProviderKind.optional(),
    model: z.string().min(1).optional(),
    /** The ACP agent, with `provider: "acp"`. */
    acpAgent: AcpAgentName.optional(),
    /** With a switch: the target provider starts a new thread told everything, not its earlier one. */
    cleanContext: z.boolean().optional(),
    /** Merges a fork's work back first (as `thread.merge_back`): this message's run is told it. */
    mergeBackFromThreadId: ThreadId.optional(),
  }),
  'run.interrupt': command('run.interrupt', {
    runId: RunId,
    holdQueue: z.boolean().optional(),
  }),
  'thread.stop': command('thread.stop', { threadId: ThreadId }),
  'runtime-request.respond': command('runtime-request.respond', {
    requestId: RuntimeRequestId,
    decision: ApprovalDecision.optional(),
    answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
  }),
  'queued-run.reorder': command('queued-run.reorder', {
    threadId: ThreadId,
    order: z.array(RunId).min(1),
  }),
  'queued-run.cancel': command('queued-run.cancel', { runId: RunId }),
  'queued-message.promote': command('queued-message.promote', { runId: RunId }),
  'thread.fork': command('thread.fork', {
    sourceThreadId: ThreadId,
    source: ForkSource,
    threadId: NewThreadId.optional(),
    title: z.string().max(500).optional(),
    /** The fork's provider (default: the source's); another one resolves the fork portably. */
    provider: ProviderKind.optional(),
    /** The ACP agent, for a fork onto provider `acp` (default: the source's, when it stays on it). */
    acpAgent: AcpAgentName.optional(),
    /** The fork's model (default: the source's on its own provider, else the provider's default). */
    model: z.string().min(1).optional(),
    /**
     * The fork's own workspace, written from the fork point's checkpoint: an absolute path to
     * a folder that is empty or absent (default: a new folder under Baton's data dir).
     */
    cwd: z.string().min(1).optional(),
  }),
  'thread.merge_back': command('thread.merge_back', {
    threadId: ThreadId,
    /** The fork whose work is told back to this thread's next run. */
    fromThreadId: ThreadId,
    /** Also apply the fork's file changes since the fork point to this thread's workspace. */
    files: z.boolean().optional(),
  }),
  'rollback.toRun': command('rollback.toRun', {
    threadId: ThreadId,
    runOrdinal: z.number().int().nonnegative(),
  }),
  'rollback.node': command('rollback.node', {
    nodeId: NodeId,
    checkpointId: CheckpointId,
  }),
  'thread.settings.update': command('thread.settings.update', {
    threadId: ThreadId,
    title: z.string().max(500).optional(),
    provider: ProviderKind.optional(),
    model: z.string().min(1).optional(),
    runtimeMode: RuntimeMode.optional(),
    interactionMode: InteractionMode.optional(),
    acpAgent: AcpAgentName.optional(),
    /** With a provider switch: the target provider starts a new thread told everything, not its earlier one. */
    cleanContext: z.boolean().optional(),
  }),
  'plan.implement': command('plan.implement', {
    planId: PlanArtifactId,
    /** A fork of the plan's thread to implement it in (default: the plan's own thread). */
    threadId: ThreadId.optional(),
  }),
  'thread.archive': command('thread.archive', { threadId: ThreadId }),
  'thread.delete': command('thread.delete', { threadId: ThreadId }),
} as const;

export type CommandType = keyof typeof commandSchemas;
export const commandTypes = Object.keys(commandSchemas) as CommandType[];

export const Command = discriminatedUnionOf('type', Object.values(commandSchemas));
export type Command = { [K in CommandType]: z.infer<(typeof commandSchemas)[K]> }[CommandType];
export type CommandOf<K extends CommandType> = z.infer<(typeof commandSchemas)[K]>;
