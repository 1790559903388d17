import { z } from 'zod';
import type { ErrorInfo } from '../../domain/errors.js';
import type { MessageId, NodeId, PlanArtifactId, ProviderThreadId, RunAttemptId, RunId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { NormalizerScope, ProviderNormalizer } from '../provider.js';
import { AcpModes, type AcpMode } from './acp-modes.js';
import { AcpToolCalls, ToolFields } from './acp-tool-calls.js';

/**
 * An ACP session's frames -> Baton's provider events. A turn is one `session/prompt`: it
 * begins when Baton sends it (`begin`) and ends with its response's stop reason (`stop`
 * frame); `cancelled` is an interruption. In between, `session/update`s (`update` frames):
 * message chunks are the reply's deltas (the message completes when something else comes,
 * or at the end), thought chunks stream into a reasoning node, `tool_call` /
 * `tool_call_update` are tool nodes (acp-tool-calls.ts), `plan` is the todo list.
 * In a plan-mode turn a `switch_mode` tool call is no tool node: its ask is the proposed plan
 * (acp-proposed-plan.ts, `planProposed`), as Claude's ExitPlanMode is on the Claude provider.
 * An update with no turn running (a `session/load` replaying history) is no event, except
 * the session's mode (`current_mode_update`, a `mode` config option: acp-modes.ts), which is
 * the session's and not a turn's: `mode.updated` whenever it changes.
 */

/** The attempt a prompt runs. */
export interface AcpTurnRef {
  runId: RunId;
  attemptId: RunAttemptId;
  rootNodeId: NodeId;
  providerThreadId: ProviderThreadId | null;
  /** The thread's interactionMode is `plan` for this turn. */
  planning?: boolean;
}

const Text = z.looseObject({ type: z.literal('text'), text: z.string() });
const Chunk = z.looseObject({ content: z.looseObject({ type: z.string() }) });
const Update = z.discriminatedUnion('sessionUpdate', [
  Chunk.extend({ sessionUpdate: z.literal('agent_message_chunk') }),
  Chunk.extend({ sessionUpdate: z.literal('agent_thought_chunk') }),
  z.looseObject({ sessionUpdate: z.literal('tool_call'), ...ToolFields }),
  z.looseObject({ sessionUpdate: z.literal('tool_call_update'), ...ToolFields }),
  z.looseObject({
    sessionUpdate: z.literal('plan'),
    entries: z.array(z.looseObject({ content: z.string(), status: z.enum(['pending', 'in_progress', 'completed']) })),
  }),
]);
type Update = z.infer<typeof Update>;

/** What the adapter hands the normalizer: a session update, or the prompt's end. */
export const AcpFrame = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('update'), update: z.unknown() }),
  z.object({ kind: z.literal('stop'), stopReason: z.string() }),
  z.object({ kind: z.literal('failed'), message: z.string() }),
]);
export type AcpFrame = z.infer<typeof AcpFrame>;

export const createAcpNormalizer = (scope: NormalizerScope): AcpNormalizer => new AcpNormalizer(scope);

export class AcpNormalizer implements ProviderNormalizer {
  /** The prompt running now. */
  active: AcpTurnRef | null = null;
  /** Baton asked the agent to cancel the active prompt. */
  interruptRequested = false;
  /** Whether the active prompt has had any update of its own yet. */
  heard = false;
  private message: { messageId: MessageId; text: string } | null = null;
  /** The reasoning streaming now; `section` is its text since the last section break, in `chunks` chunks. */
  private thought: { nodeId: NodeId; text: string; section: string; chunks: number } | null = null;
  /** The tool calls of the active prompt. */
  private readonly tools: AcpToolCalls;
  private plan: PlanArtifactId | null = null;
  /** A plan-mode turn's `switch_mode` tool calls: the plan's proposal, not tool nodes. */
  private readonly planExits = new Set<string>();
  private readonly modes = new AcpModes();

  constructor(private readonly scope: NormalizerScope) {
    this.tools = new AcpToolCalls(() => scope.ids.next('node'));
  }

  /** Baton sent a prompt for this attempt: its turn starts now. */
  begin(ref: AcpTurnRef): ProviderEvent[] {
    this.active = ref;
    this.interruptRequested = false;
    this.heard = false;
    return [
      {
        type: 'turn.started',
        ...this.on(ref),
        attemptId: ref.attemptId,
        nodeId: ref.rootNodeId,
        nativeTurnRef: null,
      },
      this.status('running'),
    ];
  }

  /** The node of a tool call of the active turn, if announced. */
  toolNode(toolCallId: string): NodeId | null {
    return this.tools.nodeOf(toolCallId);
  }

  /** A session was opened, taken up or forked: the mode its answer says it runs in. */
  opened(answer: unknown): ProviderEvent[] {
    const mode = this.modes.fromAnswer(answer);
    return mode ? [this.modeUpdated(mode)] : [];
  }

  normalize(frame: unknown): ProviderEvent[] {
    const parsed = AcpFrame.safeParse(frame);
    if (!parsed.success) return [];
    const f = parsed.data;
    const mode = f.kind === 'update' ? this.modes.fromUpdate(f.update) : null;
    if (mode) return [this.modeUpdated(mode)];
    const ref = this.active;
    if (!ref) return [];
    if (f.kind === 'stop') return this.end(ref, f.stopReason, null);
    if (f.kind === 'failed') return this.end(ref, null, f.message);
    const update = Update.safeParse(f.update);
    if (update.success) this.heard = true;
    // Commands, usage, session info: nothing Baton shows yet.
    return update.success ? this.onUpdate(update.data, ref) : [];
  }

  private onUpdate(u: Update, ref: AcpTurnRef): ProviderEvent[] {
    switch (u.sessionUpdate) {
      case 'agent_message_chunk': {
        const text = Text.safeParse(u.content);
        if (!text.success || !text.data.text) return [];
        const closed = this.closeThought(ref, 'completed');
        this.message ??= { messageId: this.scope.ids.next('message'), text: '' };
        this.message.text += text.data.text;
        const delta = text.data.text;
        return [
          ...closed,
          { type: 'message.delta', ...this.on(ref), nodeId: ref.rootNodeId, messageId: this.message.messageId, delta },
        ];
      }
      case 'agent_thought_chunk': {
        const text = Text.safeParse(u.content);
        if (!text.success || !text.data.text) return [];
        const delta = text.data.text;
        const t = this.thought;
        // A section break before any reasoning is none (codex-acp opens every section with "\n\n").
        if (!t && !delta.trim()) return [];
        // codex-acp 0.16.0 ends its last section by sending it again whole (measured): a chunk
        // that repeats the section streamed just before it, chunk by chunk, is not new text.
        if (t && t.chunks > 1 && delta === t.section) return [];
        const events = this.closeMessage(ref);
        if (!this.thought) {
          const nodeId = this.scope.ids.next('node');
          this.thought = { nodeId, text: '', section: '', chunks: 0 };
          events.push(this.nodeStarted(ref, nodeId, 'reasoning', null));
        }
        const thought = this.thought;
        thought.text += delta;
        if (delta.trim()) {
          thought.section += delta;
          thought.chunks += 1;
        } else {
          thought.section = '';
          thought.chunks = 0;
        }
        events.push({ type: 'node.delta', ...this.on(ref), nodeId: thought.nodeId, delta });
        return events;
      }
      case 'tool_call':
      case 'tool_call_update': {
        const closed = [...this.closeMessage(ref), ...this.closeThought(ref, 'completed')];
        if (
          ref.planning &&
          (u.kind === 'switch_mode' || this.planExits.has(u.toolCallId)) &&
          !this.tools.has(u.toolCallId)
        ) {
          this.planExits.add(u.toolCallId);
          return closed;
        }
        const start = (nodeId: NodeId, title: string | null) => this.nodeStarted(ref, nodeId, 'tool_call', title);
        return [...closed, ...this.tools.update(u, { ...this.on(ref), start })];
      }
      case 'plan':
        this.plan ??= this.scope.ids.next('plan');
        return [
          {
            type: 'plan.updated',
            ...this.on(ref),
            nodeId: ref.rootNodeId,
            planId: this.plan,
            kind: 'todo_list',
            text: null,
            steps: u.entries.map((e) => ({ text: e.content, status: e.status })),
          },
        ];
    }
  }

  /** The agent proposed its plan (acp-proposed-plan.ts): a final proposed plan of the active turn. */
  planProposed(text: string): ProviderEvent[] {
    const ref = this.active;
    if (!ref) return [];
    return [
      ...this.closeMessage(ref),
      ...this.closeThought(ref, 'completed'),
      {
        type: 'plan.updated',
        ...this.on(ref),
        nodeId: ref.rootNodeId,
        planId: this.scope.ids.next('plan'),
        kind: 'proposed_plan',
        text,
        steps: [],
        final: true,
      },
    ];
  }

  /** The prompt's end: what it left open ends with it. */
  private end(ref: AcpTurnRef, stopReason: string | null, failure: string | null): ProviderEvent[] {
    const status =
      stopReason === 'end_turn'
        ? 'completed'
        : stopReason === 'cancelled' || this.interruptRequested
          ? 'interrupted'
          : 'failed';
    const error: ErrorInfo | null =
      status !== 'failed'
        ? null
        : { code: 'provider_error', message: failure ?? `the ACP agent stopped the turn: ${stopReason ?? 'unknown'}` };
    const nodeEnd = status === 'completed' ? 'completed' : 'interrupted';
    const events: ProviderEvent[] = [...this.closeMessage(ref), ...this.closeThought(ref, nodeEnd)];
    events.push(...this.tools.end(this.on(ref), nodeEnd));
    this.planExits.clear();
    this.plan = null;
    this.active = null;
    this.interruptRequested = false;
    events.push(
      { type: 'turn.completed', ...this.on(ref), attemptId: ref.attemptId, nodeId: ref.rootNodeId, status, error },
      this.status('ready'),
    );
    return events;
  }

  private closeMessage(ref: AcpTurnRef): ProviderEvent[] {
    const m = this.message;
    this.message = null;
    return m
      ? [{ type: 'message.completed', ...this.on(ref), nodeId: ref.rootNodeId, messageId: m.messageId, text: m.text }]
      : [];
  }

  private closeThought(ref: AcpTurnRef, status: 'completed' | 'interrupted'): ProviderEvent[] {
    const t = this.thought;
    this.thought = null;
    return t
      ? [
          { type: 'node.detail', ...this.on(ref), nodeId: t.nodeId, text: t.text, detail: {} },
          { type: 'node.completed', ...this.on(ref), nodeId: t.nodeId, status },
        ]
      : [];
  }

  private nodeStarted(
    ref: AcpTurnRef,
    nodeId: NodeId,
    kind: 'reasoning' | 'tool_call',
    title: string | null,
  ): ProviderEvent {
    return {
      type: 'node.started',
      ...this.on(ref),
      nodeId,
      parentNodeId: ref.rootNodeId,
      attemptId: ref.attemptId,
      kind,
      title,
    };
  }

  private modeUpdated(mode: AcpMode): ProviderEvent {
    const runId = this.active?.runId ?? null;
    return { type: 'mode.updated', threadId: this.scope.threadId, runId, modeId: mode.id, name: mode.name };
  }

  private on(ref: AcpTurnRef) {
    return { threadId: this.scope.threadId, runId: ref.runId };
  }

  private status(status: 'running' | 'ready'): ProviderEvent {
    return {
      type: 'session.status',
      threadId: this.scope.threadId,
      sessionId: this.scope.sessionId,
      provider: 'acp',
      status,
      reason: null,
    };
  }
}
