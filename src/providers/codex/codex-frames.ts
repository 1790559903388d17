import { z } from 'zod';
import type { ServerNotification } from '../../../vendor/codex-protocol/ServerNotification.js';
import type { ServerRequest } from '../../../vendor/codex-protocol/ServerRequest.js';
import type {
  ThreadForkResponse,
  ThreadItem,
  ThreadResumeResponse,
  ThreadRevertResponse,
  ThreadStartResponse,
  ThreadTurnsListResponse,
  TurnStartResponse,
} from '../../../vendor/codex-protocol/v2/index.js';

/**
 * The parts of Codex's frames Baton reads, validated with zod where they arrive, and tied
 * at compile time to the protocol generated from the pinned Codex (vendor/codex-protocol):
 * each schema must accept every frame that protocol allows for its method, item type or
 * response, so a protocol change that breaks what Baton reads (a field renamed, retyped or
 * made optional, a method renamed) fails `tsc` instead of a run. Schemas are loose: the
 * fields Baton does not read pass untouched.
 */

/**
 * `T` with each schema kept only if it parses every `Protocol[K]` of its key; a schema that
 * does not, or a key the protocol lacks, becomes `never` and tsc names the key.
 */
type Tied<Protocol, T> = {
  [K in keyof T]: K extends keyof Protocol
    ? T[K] extends z.ZodType
      ? [Protocol[K]] extends [z.input<T[K]>]
        ? T[K]
        : never
      : never
    : never;
};
const tiedTo =
  <Protocol>() =>
  <T extends Tied<Protocol, T>>(schemas: T): T =>
    schemas;

type NotificationParams = { [N in ServerNotification as N['method']]: N['params'] };
type RequestParams = { [R in ServerRequest as R['method']]: R['params'] };
type Items = { [I in ThreadItem as I['type']]: I };
/** What Codex answers to the client requests Baton makes (the generated protocol has no method -> response map). */
interface Responses {
  'thread/start': ThreadStartResponse;
  'thread/resume': ThreadResumeResponse;
  'thread/fork': ThreadForkResponse;
  'thread/revert': ThreadRevertResponse;
  'thread/turns/list': ThreadTurnsListResponse;
  'turn/start': TurnStartResponse;
}

const nullable = <T extends z.ZodType>(t: T) => t.nullable().optional();
const onTurn = { threadId: z.string(), turnId: z.string() };
const onItem = { ...onTurn, itemId: z.string() };

const TurnNote = z.looseObject({
  threadId: z.string(),
  turn: z.looseObject({
    id: z.string(),
    status: z.string(),
    error: nullable(z.looseObject({ message: z.string() })),
    /** The first turn of the chain of work: a subagent's turn names its root thread's turn. */
    rootTurnId: nullable(z.string()),
  }),
});
const ItemNote = z.looseObject({ ...onTurn, item: z.looseObject({ type: z.string(), id: z.string() }) });
const ItemDelta = z.looseObject({ ...onItem, delta: z.string() });

export const notificationFrames = tiedTo<NotificationParams>()({
  'turn/started': TurnNote,
  'turn/completed': TurnNote,
  'item/started': ItemNote,
  'item/completed': ItemNote,
  'item/agentMessage/delta': ItemDelta,
  'item/reasoning/summaryTextDelta': ItemDelta,
  'item/commandExecution/outputDelta': ItemDelta,
  'item/plan/delta': ItemDelta,
  'item/reasoning/summaryPartAdded': z.looseObject({ ...onItem, summaryIndex: z.number() }),
  'item/mcpToolCall/progress': z.looseObject({ ...onItem, message: z.string() }),
  'item/fileChange/patchUpdated': z.looseObject({ ...onItem, changes: z.array(z.unknown()) }),
  'turn/plan/updated': z.looseObject({
    ...onTurn,
    explanation: nullable(z.string()),
    plan: z.array(z.object({ step: z.string(), status: z.string() })),
  }),
  'turn/diff/updated': z.looseObject({ ...onTurn, diff: z.string() }),
  'thread/status/changed': z.looseObject({
    threadId: z.string(),
    status: z.looseObject({ type: z.string(), activeFlags: z.array(z.string()).optional() }),
  }),
  'serverRequest/resolved': z.looseObject({ threadId: z.string(), requestId: z.union([z.string(), z.number()]) }),
  error: z.looseObject({
    threadId: z.string(),
    turnId: z.string().optional(),
    error: z.looseObject({ message: z.string() }),
    willRetry: z.boolean().optional(),
  }),
});

/** The server requests Baton turns into runtime requests (Codex's legacy `execCommandApproval`/`applyPatchApproval` carry no turn and are refused). */
export const requestFrames = tiedTo<RequestParams>()({
  'item/commandExecution/requestApproval': z.looseObject({
    ...onItem,
    command: nullable(z.string()),
    reason: nullable(z.string()),
  }),
  'item/fileChange/requestApproval': z.looseObject({ ...onItem, reason: nullable(z.string()) }),
  'item/tool/requestUserInput': z.looseObject({
    ...onItem,
    questions: z.array(z.looseObject({ question: z.string() })),
  }),
});
export type RequestMethod = keyof typeof requestFrames;

/** Thread items, by type: what a message, plan, reasoning and each tool item holds. */
export const itemFrames = tiedTo<Items>()({
  agentMessage: z.looseObject({ text: z.string() }),
  plan: z.looseObject({ text: z.string().default('') }),
  reasoning: z.looseObject({ summary: z.array(z.string()).default([]), content: z.array(z.string()).default([]) }),
  commandExecution: z.looseObject({
    command: z.string(),
    cwd: nullable(z.string()),
    exitCode: nullable(z.number()),
    durationMs: nullable(z.number()),
    aggregatedOutput: nullable(z.string()),
  }),
  fileChange: z.looseObject({
    changes: z.array(z.looseObject({ path: z.string(), kind: z.unknown(), diff: z.string() })),
  }),
  mcpToolCall: z.looseObject({
    server: z.string(),
    tool: z.string(),
    arguments: z.unknown(),
    result: z.unknown(),
    error: nullable(z.looseObject({ message: z.string() })),
    durationMs: nullable(z.number()),
  }),
  dynamicToolCall: z.looseObject({
    tool: z.string(),
    namespace: nullable(z.string()),
    arguments: z.unknown(),
    contentItems: z.unknown(),
    success: nullable(z.boolean()),
    durationMs: nullable(z.number()),
  }),
  webSearch: z.looseObject({ query: z.string(), action: z.unknown(), results: z.unknown() }),
  /** A multi-agent tool call (v1's spawn_agent, and every wait / close / send of v1 and v2). */
  collabAgentToolCall: z.looseObject({
    tool: z.string(),
    status: z.string(),
    receiverThreadIds: z.array(z.string()),
    prompt: nullable(z.string()),
    model: nullable(z.string()),
    reasoningEffort: nullable(z.string()),
    agentsStates: z.record(z.string(), z.looseObject({ status: z.string(), message: nullable(z.string()) }).optional()),
  }),
  /** A subagent's lifecycle as its parent's thread tells it (v2's spawn_agent is its `started`). */
  subAgentActivity: z.looseObject({
    kind: z.string(),
    agentThreadId: z.string(),
    agentPath: z.string(),
    model: nullable(z.string()),
    reasoningEffort: nullable(z.string()),
  }),
});

const ThreadResult = z.looseObject({ thread: z.looseObject({ id: z.string() }) });
const TurnResult = z.looseObject({ turn: z.looseObject({ id: z.string(), status: z.string() }) });

/** Codex's answers to Baton's client requests. */
export const responseFrames = tiedTo<Responses>()({
  'thread/start': ThreadResult,
  'thread/resume': ThreadResult,
  'thread/fork': ThreadResult,
  'thread/revert': ThreadResult,
  'thread/turns/list': z.looseObject({
    data: z.array(z.looseObject({ id: z.string() })),
    nextCursor: z.string().nullable(),
  }),
  'turn/start': TurnResult,
});

/** A frame Codex sends unasked, as decoded from the wire: a notification, or a server request (it has an id). */
export const inboundFrame = tiedTo<{ inbound: ServerNotification | ServerRequest }>()({
  inbound: z.looseObject({
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string(),
    params: z.unknown().optional(),
  }),
}).inbound;
