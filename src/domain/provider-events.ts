import { z } from 'zod';
import { ErrorInfo } from './errors.js';
import {
  MessageId,
  NodeId,
  PlanArtifactId,
  ProviderSessionId,
  ProviderThreadId,
  RunAttemptId,
  RunId,
  RuntimeRequestId,
  ThreadId,
} from './ids.js';
import { NodeKind, PlanArtifactKind, ProviderSessionStatus, RuntimeRequestKind } from './statuses.js';
import { PlanStep, Question } from './entities.js';

/**
 * Normalized provider events: what an adapter hands the runtime after translating native
 * frames. They carry app ids (resolved through identity bindings) and keep native refs as
 * evidence. They are never rewritten to look like another provider's events: each
 * adapter maps its own protocol onto this neutral vocabulary.
 */
const onThread = { threadId: ThreadId };
const onRun = { threadId: ThreadId, runId: RunId };
const TurnEnd = z.enum(['completed', 'interrupted', 'failed']);

export const ProviderEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('turn.started'),
    ...onRun,
    attemptId: RunAttemptId,
    nodeId: NodeId,
    nativeTurnRef: z.string().nullable(),
  }),
  /** Any turn: the root turn of the active attempt, a child or subagent turn, a superseded attempt's turn. */
  z.object({
    type: z.literal('turn.completed'),
    ...onRun,
    attemptId: RunAttemptId,
    nodeId: NodeId,
    status: TurnEnd,
    error: ErrorInfo.nullable(),
  }),
  z.object({ type: z.literal('interrupt.acknowledged'), ...onRun }),
  z.object({
    type: z.literal('node.started'),
    ...onRun,
    nodeId: NodeId,
    parentNodeId: NodeId,
    attemptId: RunAttemptId.nullable(),
    kind: NodeKind,
    title: z.string().nullable(),
  }),
  z.object({
    type: z.literal('node.completed'),
    ...onRun,
    nodeId: NodeId,
    status: z.enum(['completed', 'interrupted', 'failed', 'cancelled']),
  }),
  /** Streamed text of a node: a reasoning summary, a command's output. */
  z.object({ type: z.literal('node.delta'), ...onRun, nodeId: NodeId, delta: z.string() }),
  /** What the provider says about a node's item: `text` replaces its streamed text; `detail` is merged (exit code, duration, files, result). */
  z.object({
    type: z.literal('node.detail'),
    ...onRun,
    nodeId: NodeId,
    text: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()),
    /** The node's new title, when the agent renamed it (an ACP tool call's update may). */
    title: z.string().min(1).optional(),
  }),
  z.object({ type: z.literal('message.delta'), ...onRun, nodeId: NodeId, messageId: MessageId, delta: z.string() }),
  z.object({ type: z.literal('message.completed'), ...onRun, nodeId: NodeId, messageId: MessageId, text: z.string() }),
  z.object({
    type: z.literal('plan.updated'),
    ...onRun,
    nodeId: NodeId,
    planId: PlanArtifactId,
    kind: PlanArtifactKind,
    text: z.string().nullable(),
    steps: z.array(PlanStep),
    questions: z.array(Question).optional(),
    /** The provider finished this artifact (a completed proposed plan). */
    final: z.boolean().optional(),
  }),
  /** Streamed text of a proposed plan. */
  z.object({ type: z.literal('plan.delta'), ...onRun, planId: PlanArtifactId, delta: z.string() }),
  z.object({
    type: z.literal('request.opened'),
    ...onRun,
    requestId: RuntimeRequestId,
    nodeId: NodeId,
    parentNodeId: NodeId,
    kind: RuntimeRequestKind,
    prompt: z.string(),
    details: z.record(z.string(), z.unknown()),
    providerSessionId: ProviderSessionId,
    /** Asked by work that outlives its run (a background subagent): its run neither waits on it nor ends it. */
    outlivesRun: z.boolean().optional(),
  }),
  /**
   * The agent began a turn no message of Baton's asked for (after a background task of its own
   * ended). Baton queues a run for it with these ids (`origin: agent_turn`, `text` its message);
   * the adapter binds the turn to that run when the run's turn start reaches it.
   */
  z.object({
    type: z.literal('agent.turn'),
    ...onRun,
    attemptId: RunAttemptId,
    nodeId: NodeId,
    messageId: MessageId,
    text: z.string(),
    reason: z.enum(['subagent_notification', 'task_notification']),
    /** The subagent whose notification it answers, if any. */
    sourceNodeId: NodeId.nullable(),
  }),
  /** The provider settled a request itself (for example when its turn ended). */
  z.object({ type: z.literal('request.closed'), ...onThread, requestId: RuntimeRequestId, reason: z.string() }),
  /**
   * The work under a node now outlives its run (a Claude subagent moved to the background): its
   * open requests are not the run's any more (it neither waits on them nor ends them).
   */
  z.object({ type: z.literal('node.outlives_run'), ...onRun, nodeId: NodeId }),
  z.object({
    type: z.literal('session.status'),
    ...onThread,
    sessionId: ProviderSessionId,
    provider: z.enum(['codex', 'claude', 'acp']),
    status: ProviderSessionStatus,
    reason: z.string().nullable(),
  }),
  /** `resolution` says how a fork's source point became this provider thread. */
  z.object({
    type: z.literal('thread.loaded'),
    ...onThread,
    providerThreadId: ProviderThreadId,
    nativeThreadRef: z.string(),
    resumeCursor: z.string().nullable(),
    resolution: z.enum(['native_fork', 'portable_context']).optional(),
  }),
  /**
   * A subagent's own native thread (a child conversation the provider runs for a turn of the
   * run) as a provider thread of Baton's, owned by the subagent node that spawned it: `bound`
   * makes it, once per child conversation, with its native ref; then a turn of the child
   * begins or ends, the child is closed, or the session that ran it is gone (`lost`).
   * `nodeId`: the subagent node it concerns (its owner when bound; a follow-up's node after).
   */
  z.object({
    type: z.literal('subagent.thread'),
    ...onRun,
    nodeId: NodeId,
    providerThreadId: ProviderThreadId,
    nativeThreadRef: z.string(),
    change: z.enum(['bound', 'turn_began', 'turn_ended', 'closed', 'lost']),
  }),
  /** The provider thread cannot be used any more (its resume failed): a replacement is seeded from Baton's own record. */
  z.object({ type: z.literal('thread.failed'), ...onThread, providerThreadId: ProviderThreadId, reason: z.string() }),
  /** The provider rolled its conversation back; what it still holds, checked against the turns Baton keeps. */
  z.object({
    type: z.literal('thread.reverted'),
    ...onThread,
    providerThreadId: ProviderThreadId.nullable(),
    runOrdinal: z.number().int().nonnegative(),
    remainingTurnRefs: z.array(z.string()),
    missingTurnRefs: z.array(z.string()),
    unexpectedTurnRefs: z.array(z.string()),
  }),
  /** The provider's view of what the turn changed so far: a unified diff. */
  z.object({ type: z.literal('diff.updated'), ...onRun, diff: z.string() }),
  z.object({ type: z.literal('warning'), ...onThread, runId: RunId.nullable(), message: z.string() }),
  /**
   * The mode the agent says its session runs in now (an ACP session mode: opened in it, switched
   * to it by Baton, or by the agent itself); `name` is the agent's display name when it gave one.
   * Never a change of the thread's own settings. `runId`: the run whose turn it came in, if any.
   */
  z.object({
    type: z.literal('mode.updated'),
    ...onThread,
    runId: RunId.nullable(),
    modeId: z.string().min(1),
    name: z.string().nullable(),
  }),
  /** The provider process is gone: live callbacks die with it and the active run ends by policy. */
  z.object({
    type: z.literal('runtime.lost'),
    ...onThread,
    sessionId: ProviderSessionId.nullable(),
    runStatus: z.enum(['failed', 'interrupted']),
    error: ErrorInfo,
  }),
]);
export type ProviderEvent = z.infer<typeof ProviderEvent>;
export type ProviderEventType = ProviderEvent['type'];
