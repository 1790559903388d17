import { z } from 'zod';
import type { ErrorInfo } from '../../domain/errors.js';
import type { MessageId, NodeId, ProviderSessionId, ProviderThreadId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';
import type { NormalizerScope, ProviderNormalizer } from '../provider.js';
import { ClaudeOwnTurns } from './claude-own-turns.js';
import { ClaudeSubagents, type AskPlace } from './claude-subagents.js';
import { ClaudeItems, type ClaudeTurnRef } from './claude-tool-items.js';

/**
 * The Claude agent's SDK messages -> Baton's provider events, for one app thread's session.
 * A turn is one user message Baton sent: the first message after it starts the turn, its
 * `result` ends it. Streamed `text_delta`s are the message's deltas; the whole `assistant`
 * message is the truth for its text (after a stream error the agent retries without
 * streaming, and the reply arrives only whole). Thinking, tool uses and the planning tools
 * are items (claude-tool-items.ts). The `Agent` tool's subagents, and every frame from inside
 * one (`parent_tool_use_id` set) or about one (`task_*`), are subagent nodes (claude-subagents.ts).
 * A turn the agent begins of its own (after a background task's notification) becomes a run of
 * its own (claude-own-turns.ts).
 */

export type { ClaudeTurnRef } from './claude-tool-items.js';

const Block = z.looseObject({ type: z.string() });
const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

/** `system/api_retry`: a model request failed and is retried after a delay. */
const ApiRetry = z.looseObject({
  attempt: z.number(),
  max_retries: z.number(),
  retry_delay_ms: z.number(),
  error_status: z.number().nullable(),
});

const SdkMessage = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('system'), subtype: z.string(), session_id: z.string() }),
  /** The agent took a user message (`queued`), began (`started`) and finished (`completed`) it: `command_uuid` is its uuid. */
  z.looseObject({ type: z.literal('command_lifecycle'), command_uuid: z.string(), state: z.string() }),
  z.looseObject({
    type: z.literal('stream_event'),
    parent_tool_use_id: z.string().nullable(),
    event: z.looseObject({
      type: z.string(),
      index: z.number().optional(),
      content_block: Block.optional(),
      delta: z
        .looseObject({ type: z.string(), text: z.string().optional(), thinking: z.string().optional() })
        .optional(),
    }),
  }),
  z.looseObject({
    type: z.literal('assistant'),
    parent_tool_use_id: z.string().nullable(),
    error: z.unknown().optional(),
    message: z.looseObject({ id: z.string().optional(), content: z.array(Block) }),
  }),
  z.looseObject({
    type: z.literal('user'),
    parent_tool_use_id: z.string().nullable(),
    message: z.looseObject({ content: z.union([z.string(), z.array(Block)]) }),
  }),
  z.looseObject({
    type: z.literal('result'),
    subtype: z.string(),
    is_error: z.boolean().optional(),
    result: z.string().optional(),
    errors: z.array(z.string()).optional(),
    session_id: z.string(),
  }),
]);
type SdkMessage = z.infer<typeof SdkMessage>;

/** A text block being written: its message, and the text its deltas brought. */
interface OpenText {
  messageId: MessageId;
  streamed: string;
}

export const createClaudeNormalizer = (scope: NormalizerScope): ClaudeNormalizer => new ClaudeNormalizer(scope);

export class ClaudeNormalizer implements ProviderNormalizer {
  private readonly threadId: ThreadId;
  private readonly sessionId: ProviderSessionId;
  private readonly ids: IdSource;
  /** The turn Baton asked for and the agent has not begun yet. */
  private pending: ClaudeTurnRef | null = null;
  /** The turn running now. */
  active: ClaudeTurnRef | null = null;
  /** Baton asked the active turn to stop: its error result is an interruption. */
  interruptRequested = false;
  /** The agent's session id (the native thread), once its `system/init` said it. */
  nativeSessionId: string | null = null;
  /** The session id each provider thread is bound to already (no second `thread.loaded`). */
  private readonly loaded = new Map<string, string>();
  private texts: OpenText[] = [];
  private items: ClaudeItems;
  private readonly subagents: ClaudeSubagents;
  private readonly own: ClaudeOwnTurns;
  /** Frames that did not read as an SDK message Baton knows. */
  unknown = 0;

  constructor(scope: NormalizerScope) {
    this.threadId = scope.threadId;
    this.sessionId = scope.sessionId;
    this.ids = scope.ids;
    this.items = new ClaudeItems(scope.threadId, scope.ids);
    this.subagents = new ClaudeSubagents(scope.threadId, scope.ids);
    this.own = new ClaudeOwnTurns(scope.threadId, scope.ids);
  }

  /**
   * Baton sent a user message for this attempt: the next frames are its turn. An own turn of
   * the agent's that runs unbound now denies its asks: the agent takes this message only after
   * it, and Baton its run only after this one.
   */
  begin(ref: ClaudeTurnRef, knownSessionId: string | null): void {
    this.pending = ref;
    this.interruptRequested = false;
    if (ref.providerThreadId && knownSessionId) this.loaded.set(ref.providerThreadId, knownSessionId);
    this.own.release(null);
  }

  /** Whether an attempt is a turn the agent began of its own (its turn start binds it: `adopt`). */
  ownsTurn(attemptId: string): boolean {
    return this.own.owns(attemptId);
  }

  /** Whether work of the agent's goes on with no turn of Baton's: a background subagent, an own turn not bound yet. */
  get backgroundWork(): boolean {
    return this.subagents.backgroundRunning || this.own.running !== null;
  }

  /**
   * The run Baton queued for an own turn starts: the turn is bound to it, and its frames so far
   * are read as that run's (apart from a turn of Baton's still being read, if one is). Null
   * when the turn is not this session's.
   */
  adopt(attemptId: string, providerThreadId: ProviderThreadId | null): ProviderEvent[] | null {
    const turn = this.own.take(attemptId, providerThreadId);
    if (!turn) return null;
    // A turn of Baton's being read (this one is over then): this one is read on state of its own.
    const other = this.active
      ? { ref: this.active, texts: this.texts, items: this.items, interruptRequested: this.interruptRequested }
      : null;
    this.active = turn.ref;
    this.interruptRequested = false;
    this.texts = other ? [] : this.texts;
    this.items = other ? new ClaudeItems(this.threadId, this.ids) : this.items;
    if (!turn.done) this.own.release(turn.ref);
    const events = [...this.started(turn.ref, null), ...turn.frames.flatMap((f) => this.read(f, turn.ref))];
    if (!other) return events;
    Object.assign(this, { active: other.ref, texts: other.texts, items: other.items });
    this.interruptRequested = other.interruptRequested;
    // The session's status is the running turn's, not this one's.
    return events.filter((e) => e.type !== 'session.status');
  }

  /** One kept frame of an own turn, read as its run's. */
  private read(frame: unknown, ref: ClaudeTurnRef): ProviderEvent[] {
    const parsed = SdkMessage.safeParse(frame);
    return parsed.success && this.active === ref ? this.onTurn(parsed.data, ref) : [];
  }

  /** The turn Baton asked for that the agent has not begun yet, if any. */
  get waiting(): ClaudeTurnRef | null {
    return this.pending;
  }

  /** The node of a tool use (the turn's own or a subagent's), if the agent has announced it. */
  toolNode(toolUseId: string): NodeId | null {
    return this.items.toolNode(toolUseId) ?? this.subagents.toolNode(toolUseId);
  }

  /**
   * Where a permission ask belongs: a subagent's (`agentId` set) to its run and tool node,
   * which may outlive the turn that spawned it; else the active turn's; an own turn's not bound
   * yet, once it is. Null when none (the ask is denied).
   */
  /** The running call (its tool_use id) of a tool of MCP server `server` in this turn, if one runs: a form it asks is asked there. */
  runningMcpCall(server: string): string | null {
    return this.items.runningMcpCall(server);
  }

  async askPlace(toolUseId: string, agentId: string | undefined): Promise<AskPlace | null> {
    const inSubagent = this.subagents.askContext(toolUseId, agentId);
    if (inSubagent) return inSubagent;
    const ref = this.active ?? (this.own.running ? await this.own.whenBound() : null);
    return ref
      ? { runId: ref.runId, parentNodeId: this.toolNode(toolUseId) ?? ref.rootNodeId, outlivesRun: false }
      : null;
  }

  /** The agent is gone (or stopped): its subagents still running end interrupted, its own turns not bound are let go. */
  closeSubagents(): ProviderEvent[] {
    this.own.abandon();
    return this.subagents.closeAll();
  }

  /** A Stop: own turns not bound yet will not be (their runs are cancelled); their asks are denied. */
  abandonOwnTurns(): void {
    this.own.abandon();
  }

  normalize(frame: unknown): ProviderEvent[] {
    const parsed = SdkMessage.safeParse(frame);
    if (!parsed.success) {
      // Other kinds of frame (rate limits, hooks, tasks) are not mapped; a frame that is not an SDK message is counted.
      if (!z.looseObject({ type: z.string() }).safeParse(frame).success) this.unknown += 1;
      return [];
    }
    const m = parsed.data;
    if (m.type === 'system' && m.subtype === 'init') this.nativeSessionId = m.session_id;
    const events = this.start(m);
    // A subagent's frames are its own whichever turn runs: a background one outlives its parent's turn.
    if (m.type === 'system' && m.subtype.startsWith('task_')) {
      const notice = m.subtype === 'task_notification' ? this.subagents.notice(m) : null;
      if (notice) this.own.notify(notice);
      return [...events, ...this.subagents.task(m)];
    }
    if (m.type !== 'system' && m.type !== 'command_lifecycle' && m.type !== 'result' && m.parent_tool_use_id !== null)
      return [...events, ...this.subagents.inside(m.parent_tool_use_id, m)];
    const ref = this.active;
    if (ref) return [...events, ...this.onTurn(m, ref)];
    // A turn the agent runs of its own, not bound to its run yet: kept until it is.
    const own = this.own.running;
    if (own) this.own.keep(own, frame, m.type === 'result');
    return events;
  }

  /**
   * Baton's message begins its turn when the agent starts it (`command_lifecycle started` with
   * its uuid; `queued` may come before a turn of the agent's own, measured), or else with a
   * `system/init`. An `init` that no message of Baton's began, after a notification of a task's
   * end, is a turn of the agent's own (it takes the notification before a message of Baton's
   * queued meanwhile): it asks Baton for a run (`agent.turn`).
   */
  private start(m: SdkMessage): ProviderEvent[] {
    if (this.active) return [];
    const ref = this.pending;
    if (m.type === 'command_lifecycle')
      return ref && m.command_uuid === ref.uuid && m.state === 'started' ? this.begun(ref, m) : [];
    if (m.type !== 'system' || m.subtype !== 'init' || this.own.running) return [];
    if (this.own.due) return [this.own.begin()];
    return ref ? this.begun(ref, m) : [];
  }

  /** A turn of Baton's begins. */
  private begun(ref: ClaudeTurnRef, m: SdkMessage): ProviderEvent[] {
    this.own.batonTurnBegan();
    this.pending = null;
    this.active = ref;
    const native =
      ('session_id' in m && typeof m.session_id === 'string' ? m.session_id : null) ?? this.nativeSessionId;
    return this.started(ref, native);
  }

  /** A turn begins: its run's turn, the session running, and the session id bound to its provider thread. */
  private started(ref: ClaudeTurnRef, sessionId: string | null): ProviderEvent[] {
    const t = this.threadId;
    const events: ProviderEvent[] = [
      {
        type: 'turn.started',
        threadId: t,
        runId: ref.runId,
        attemptId: ref.attemptId,
        nodeId: ref.rootNodeId,
        nativeTurnRef: ref.uuid,
      },
      {
        type: 'session.status',
        threadId: t,
        sessionId: this.sessionId,
        provider: 'claude',
        status: 'running',
        reason: null,
      },
    ];
    const native = sessionId ?? this.nativeSessionId;
    if (ref.providerThreadId && native && this.loaded.get(ref.providerThreadId) !== native) {
      this.loaded.set(ref.providerThreadId, native);
      events.push({
        type: 'thread.loaded',
        threadId: t,
        providerThreadId: ref.providerThreadId,
        nativeThreadRef: native,
        resumeCursor: native,
      });
    }
    return events;
  }

  private onTurn(m: SdkMessage, ref: ClaudeTurnRef): ProviderEvent[] {
    const on = { threadId: this.threadId, runId: ref.runId };
    switch (m.type) {
      case 'system':
        return m.subtype === 'api_retry' ? this.retrying(m, ref) : [];
      case 'command_lifecycle':
        return [];
      case 'stream_event': {
        const e = m.event;
        if (e.type === 'content_block_start' && e.content_block?.type === 'text') {
          this.texts.push({ messageId: this.ids.next('message'), streamed: '' });
          return [];
        }
        if (e.type === 'content_block_start' && e.content_block?.type === 'thinking')
          return this.items.thinkingStarted(ref);
        if (e.type === 'content_block_delta' && e.delta?.type === 'thinking_delta')
          return this.items.thinkingDelta(e.delta.thinking ?? '', ref);
        if (e.type === 'content_block_delta' && e.delta?.type === 'text_delta' && e.delta.text) {
          let open = this.texts.at(-1);
          if (!open) {
            open = { messageId: this.ids.next('message'), streamed: '' };
            this.texts.push(open);
          }
          open.streamed += e.delta.text;
          return [
            { type: 'message.delta', ...on, nodeId: ref.rootNodeId, messageId: open.messageId, delta: e.delta.text },
          ];
        }
        return [];
      }
      case 'assistant': {
        // An API error the agent reports as a synthetic reply: the result says it as the run's error.
        if (m.error !== undefined) return [];
        return m.message.content.flatMap((block): ProviderEvent[] => {
          const text = TextBlock.safeParse(block);
          if (text.success) {
            // The oldest open text block is this one (a failed stream's partial one too: the retry's whole text replaces it).
            const messageId = this.texts.shift()?.messageId ?? this.ids.next('message');
            return [{ type: 'message.completed', ...on, nodeId: ref.rootNodeId, messageId, text: text.data.text }];
          }
          if (ClaudeSubagents.isSpawn(block)) return this.subagents.spawn(block, ref);
          return this.items.block(block, ref);
        });
      }
      case 'user': {
        if (typeof m.message.content === 'string') return [];
        const run = m['tool_use_result'];
        return m.message.content.flatMap(
          (block) => this.subagents.result(block, ref, run) ?? this.items.result(block, ref, run),
        );
      }
      case 'result':
        return this.end(m, ref);
    }
  }

  /** The agent will retry a failed model request: said on the run, so a slow turn is not a silent one. */
  private retrying(m: unknown, ref: ClaudeTurnRef): ProviderEvent[] {
    const retry = ApiRetry.safeParse(m);
    if (!retry.success) return [];
    const r = retry.data;
    const cause = r.error_status === null ? 'a connection error' : `HTTP ${r.error_status}`;
    return [
      {
        type: 'warning',
        threadId: this.threadId,
        runId: ref.runId,
        message: `Claude's model request failed (${cause}); retry ${r.attempt} of ${r.max_retries} in ${r.retry_delay_ms} ms`,
      },
    ];
  }

  /** The `result`: the turn's end, with whatever it left open ended with it. */
  private end(m: Extract<SdkMessage, { type: 'result' }>, ref: ClaudeTurnRef): ProviderEvent[] {
    const on = { threadId: this.threadId, runId: ref.runId };
    const ok = m.subtype === 'success' && m.is_error !== true;
    const status = ok ? 'completed' : this.interruptRequested ? 'interrupted' : 'failed';
    const error: ErrorInfo | null =
      status === 'failed'
        ? {
            code: 'provider_error',
            message: `Claude: ${[m.result, ...(m.errors ?? [])].filter(Boolean).join('; ') || m.subtype}`,
          }
        : null;
    const events: ProviderEvent[] = [];
    // Text that streamed and never arrived whole (an interrupted reply) is kept as it streamed.
    for (const open of this.texts.splice(0))
      if (open.streamed)
        events.push({
          type: 'message.completed',
          ...on,
          nodeId: ref.rootNodeId,
          messageId: open.messageId,
          text: open.streamed,
        });
    events.push(
      ...this.subagents.turnEnded(ref, status === 'completed'),
      ...this.items.end(status === 'completed', ref),
    );
    this.active = null;
    this.interruptRequested = false;
    events.push(
      {
        type: 'turn.completed',
        ...on,
        attemptId: ref.attemptId,
        nodeId: ref.rootNodeId,
        status,
        error,
      },
      {
        type: 'session.status',
        threadId: this.threadId,
        sessionId: this.sessionId,
        provider: 'claude',
        status: 'ready',
        reason: null,
      },
    );
    return events;
  }
}
