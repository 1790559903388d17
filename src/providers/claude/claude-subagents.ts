import { z } from 'zod';
import type { NodeId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';
import type { Notice } from './claude-own-turns.js';
import { ClaudeItems, ToolResultBlock, ToolUseBlock, resultText, type ItemTurn } from './claude-tool-items.js';

/**
 * The Claude agent's subagents (its `Agent` tool) -> subagent nodes. Measured on the agent
 * 2.1.332 (SDK 0.3.332): the parent's `tool_use` named `Agent` is followed by a `task_started`
 * (`task_id` = the agent id, `tool_use_id`, `is_backgrounded`); the subagent's own messages
 * arrive with `parent_tool_use_id` = that tool use (its tool uses and results always, its text
 * only with the SDK's `forwardSubagentText`; never as stream events); a `task_notification`
 * (`status`, `summary` = its final text) ends it. A foreground subagent's report then comes
 * back as the tool's `tool_result`; a background one's `tool_result` comes at once
 * (`status: async_launched`) and the subagent goes on after the parent's turn ended.
 *
 * A subagent is a node of kind `subagent` under the node of the turn that spawned it. Its
 * own items (tool uses, thinking) are nodes under it, its text is the node's output and its
 * final text the node's text: none of it is the parent's (no conversation message, no end of
 * the run). Its permission asks are parented to its tool nodes (`askContext`).
 *
 * A background subagent outlives its run: its node (and what lies under it) stays open after
 * the run ends, its asks are not the run's (`outlivesRun`: they stay answerable), and it ends
 * by its notification, or interrupted when the agent is interrupted (its interrupt stops every
 * background task, measured) or gone. Its notification, if no turn of Baton's takes it in, makes
 * the agent run a turn of its own (claude-own-turns.ts).
 */

/** The agent's names for the subagent tool (`Task` is its older name, still in `system/init`'s tool list). */
const SUBAGENT_TOOLS = new Set(['Agent', 'Task']);

const AgentInput = z.looseObject({
  description: z.string().optional(),
  prompt: z.string().optional(),
  subagent_type: z.string().optional(),
  run_in_background: z.boolean().optional(),
});

const TaskStarted = z.looseObject({
  subtype: z.literal('task_started'),
  task_id: z.string(),
  tool_use_id: z.string().optional(),
  is_backgrounded: z.boolean().optional(),
});
const TaskUpdated = z.looseObject({
  subtype: z.literal('task_updated'),
  task_id: z.string(),
  tool_use_id: z.string().optional(),
  patch: z.looseObject({ is_backgrounded: z.boolean().optional() }),
});
const TaskProgress = z.looseObject({
  subtype: z.literal('task_progress'),
  task_id: z.string(),
  tool_use_id: z.string().optional(),
  last_tool_name: z.string().optional(),
  usage: z.looseObject({ tool_uses: z.number(), duration_ms: z.number() }).optional(),
});
const TaskNotification = z.looseObject({
  subtype: z.literal('task_notification'),
  task_id: z.string(),
  tool_use_id: z.string().optional(),
  status: z.enum(['completed', 'failed', 'stopped']),
  summary: z.string().optional(),
  usage: z.looseObject({ total_tokens: z.number(), tool_uses: z.number(), duration_ms: z.number() }).optional(),
});
const TaskFrame = z.discriminatedUnion('subtype', [TaskStarted, TaskUpdated, TaskProgress, TaskNotification]);

/** What the agent says about the Agent tool's run on its top-level `tool_result` frame. */
const AgentToolResult = z.looseObject({
  status: z.string().optional(),
  agentId: z.string().optional(),
  content: z.unknown().optional(),
});

const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

type End = 'completed' | 'failed' | 'interrupted';

/** Where a permission ask belongs: its run and node, and whether it outlives the run (a background subagent's). */
export interface AskPlace {
  runId: ItemTurn['runId'];
  parentNodeId: NodeId;
  outlivesRun: boolean;
}

/** One subagent the agent started. */
interface Subagent {
  toolUseId: string;
  nodeId: NodeId;
  title: string;
  /** Its items' turn: the spawning run, with the subagent's node as their parent. */
  turn: ItemTurn;
  items: ClaudeItems;
  /** The agent id (`task_id`), once `task_started` said it. */
  agentId: string | null;
  background: boolean;
  /** Whether it has said anything yet (its texts are the node's output, a blank line apart). */
  said: boolean;
  ended: boolean;
}

export class ClaudeSubagents {
  /** By the `tool_use` id of the Agent call that started each. */
  private readonly byToolUse = new Map<string, Subagent>();
  /** Each subagent's node -> the node that spawned it. */
  private readonly parents = new Map<NodeId, NodeId>();

  constructor(
    private readonly threadId: ThreadId,
    private readonly ids: IdSource,
  ) {}

  /** Whether a block is a call of the subagent tool. */
  static isSpawn(block: unknown): boolean {
    const use = ToolUseBlock.safeParse(block);
    return use.success && SUBAGENT_TOOLS.has(use.data.name);
  }

  /** Whether a `tool_use` id is a subagent's Agent call. */
  owns(toolUseId: string): boolean {
    return this.byToolUse.has(toolUseId);
  }

  /** Whether a background subagent is still running (it may outlive its parent's turn). */
  get backgroundRunning(): boolean {
    return [...this.byToolUse.values()].some((s) => !s.ended && s.background);
  }

  /**
   * What the agent is told when a task ends, if it may run a turn of its own for it: a
   * background subagent's end (its node), or another task's (a background command). A
   * foreground subagent's ends inside its parent's turn.
   */
  notice(frame: unknown): Notice | null {
    const parsed = TaskNotification.safeParse(frame);
    if (!parsed.success) return null;
    const t = parsed.data;
    const sub =
      (t.tool_use_id ? this.byToolUse.get(t.tool_use_id) : undefined) ??
      [...this.byToolUse.values()].find((s) => s.agentId === t.task_id);
    const said = t.summary ? `: ${t.summary}` : '.';
    if (!sub) return { nodeId: null, text: `A background task ${t.status}${said}` };
    return sub.background
      ? { nodeId: sub.nodeId, text: `The background subagent "${sub.title}" ${t.status}${said}` }
      : null;
  }

  /** The node of a tool use made inside a subagent, if any. */
  toolNode(toolUseId: string): NodeId | null {
    for (const s of this.byToolUse.values()) {
      const node = s.items.toolNode(toolUseId);
      if (node) return node;
    }
    return null;
  }

  /**
   * Where a permission ask from a subagent (`agentID`) belongs: its run, and its tool's node
   * (else its own); a background subagent's outlives its run.
   */
  askContext(toolUseId: string, agentId: string | undefined): AskPlace | null {
    const sub = agentId ? [...this.byToolUse.values()].find((s) => s.agentId === agentId) : undefined;
    if (!sub) return null;
    return {
      runId: sub.turn.runId,
      parentNodeId: sub.items.toolNode(toolUseId) ?? sub.nodeId,
      outlivesRun: sub.background,
    };
  }

  private on(turn: ItemTurn) {
    return { threadId: this.threadId, runId: turn.runId };
  }

  /** An Agent `tool_use` of the turn `parent` (the root turn, or a subagent's own): its subagent node starts. */
  spawn(block: unknown, parent: ItemTurn): ProviderEvent[] {
    const use = ToolUseBlock.safeParse(block);
    if (!use.success || this.byToolUse.has(use.data.id)) return [];
    const input = AgentInput.safeParse(use.data.input);
    const args = input.success ? input.data : {};
    const nodeId = this.ids.next('node');
    const turn: ItemTurn = { runId: parent.runId, attemptId: parent.attemptId, rootNodeId: nodeId };
    const title = args.description ?? args.subagent_type ?? use.data.name;
    this.byToolUse.set(use.data.id, {
      toolUseId: use.data.id,
      nodeId,
      title,
      turn,
      items: new ClaudeItems(this.threadId, this.ids),
      agentId: null,
      background: args.run_in_background === true,
      said: false,
      ended: false,
    });
    this.parents.set(nodeId, parent.rootNodeId);
    return [
      {
        type: 'node.started',
        ...this.on(parent),
        nodeId,
        parentNodeId: parent.rootNodeId,
        attemptId: parent.attemptId,
        kind: 'subagent',
        title,
      },
      {
        type: 'node.detail',
        ...this.on(parent),
        nodeId,
        text: null,
        detail: {
          tool: use.data.name,
          toolUseId: use.data.id,
          subagentType: args.subagent_type ?? null,
          prompt: args.prompt ?? null,
          background: args.run_in_background === true,
        },
      },
    ];
  }

  /** A frame from inside a subagent (`parent_tool_use_id` set): its items, under its node. */
  inside(
    parentToolUseId: string,
    m: { type: string; message?: { content: unknown }; tool_use_result?: unknown },
  ): ProviderEvent[] {
    const sub = this.byToolUse.get(parentToolUseId);
    const content = m.message?.content;
    // Stream events are never forwarded for subagents; a user message that is text is its prompt.
    if (!sub || sub.ended || !Array.isArray(content)) return [];
    if (m.type === 'assistant') return content.flatMap((block) => this.block(sub, block));
    if (m.type === 'user')
      return content.flatMap(
        (block) =>
          this.result(block, sub.turn, m.tool_use_result) ?? sub.items.result(block, sub.turn, m.tool_use_result),
      );
    return [];
  }

  private block(sub: Subagent, block: unknown): ProviderEvent[] {
    if (ClaudeSubagents.isSpawn(block)) return this.spawn(block, sub.turn);
    const text = TextBlock.safeParse(block);
    if (!text.success) return sub.items.block(block, sub.turn);
    if (!text.data.text) return [];
    const delta = sub.said ? `\n\n${text.data.text}` : text.data.text;
    sub.said = true;
    return [{ type: 'node.delta', ...this.on(sub.turn), nodeId: sub.nodeId, delta }];
  }

  /**
   * A `tool_result` block: null when it is not a subagent's Agent call. A foreground
   * subagent's result is its report and ends it (if its notification did not already); a
   * background one's says it was launched, and the subagent goes on.
   */
  result(block: unknown, turn: ItemTurn, toolUseResult: unknown): ProviderEvent[] | null {
    const parsed = ToolResultBlock.safeParse(block);
    if (!parsed.success) return null;
    const sub = this.byToolUse.get(parsed.data.tool_use_id);
    if (!sub) return null;
    const run = AgentToolResult.safeParse(toolUseResult);
    const info = run.success ? run.data : {};
    if (info.agentId) sub.agentId ??= info.agentId;
    if (info.status === 'async_launched') {
      const moved = this.toBackground(sub);
      return [
        {
          type: 'node.detail',
          ...this.on(turn),
          nodeId: sub.nodeId,
          text: null,
          detail: { background: true, agentId: sub.agentId },
        },
        ...moved,
      ];
    }
    const failed = parsed.data.is_error === true;
    const report = resultText(info.content) ?? resultText(parsed.data.content);
    return this.end(sub, failed ? 'failed' : 'completed', report);
  }

  /** A `system` frame about a task: a subagent's start, progress, move to the background, or end. */
  task(frame: unknown): ProviderEvent[] {
    const parsed = TaskFrame.safeParse(frame);
    if (!parsed.success) return [];
    const t = parsed.data;
    const sub =
      (t.tool_use_id ? this.byToolUse.get(t.tool_use_id) : undefined) ??
      [...this.byToolUse.values()].find((s) => s.agentId === t.task_id);
    // Other tasks (a background shell command, say) are not subagents.
    if (!sub || sub.ended) return [];
    const on = { ...this.on(sub.turn), nodeId: sub.nodeId, text: null };
    switch (t.subtype) {
      case 'task_started':
        sub.agentId = t.task_id;
        // The agent's word wins over the model's ask (it runs every subagent in the foreground when its background tasks are off).
        sub.background = t.is_backgrounded ?? sub.background;
        return [{ type: 'node.detail', ...on, detail: { agentId: t.task_id, background: sub.background } }];
      case 'task_updated':
        if (t.patch.is_backgrounded !== true || sub.background) return [];
        return [{ type: 'node.detail', ...on, detail: { background: true } }, ...this.toBackground(sub)];
      case 'task_progress':
        return [
          {
            type: 'node.detail',
            ...on,
            detail: { lastTool: t.last_tool_name ?? null, toolUses: t.usage?.tool_uses ?? null },
          },
        ];
      case 'task_notification': {
        const status: End = t.status === 'stopped' ? 'interrupted' : t.status;
        return [
          ...(t.usage ? [{ type: 'node.detail' as const, ...on, detail: { usage: t.usage } }] : []),
          ...this.end(sub, status, t.summary ?? null),
        ];
      }
    }
  }

  /**
   * A foreground subagent moved to the background (measured: the host's `backgroundTasks`
   * control, Ctrl+B's, sends `task_updated { is_backgrounded: true }`, then the Agent call's
   * `async_launched` result; an ask it had waiting stays waiting across the parent's `result`):
   * from now on it outlives its run, and so do its asks already open (`node.outlives_run`).
   */
  private toBackground(sub: Subagent): ProviderEvent[] {
    if (sub.background) return [];
    sub.background = true;
    return [{ type: 'node.outlives_run', ...this.on(sub.turn), nodeId: sub.nodeId }];
  }

  /** A subagent ends: its open items with it, its final text on its node. */
  private end(sub: Subagent, status: End, text: string | null): ProviderEvent[] {
    if (sub.ended) return [];
    sub.ended = true;
    const on = this.on(sub.turn);
    return [
      ...this.nested(sub, status),
      ...sub.items.end(status === 'completed', sub.turn),
      ...(text !== null ? [{ type: 'node.detail' as const, ...on, nodeId: sub.nodeId, text, detail: {} }] : []),
      { type: 'node.completed', ...on, nodeId: sub.nodeId, status },
    ];
  }

  /** Subagents a subagent started, still open when it ends, end with it. */
  private nested(parent: Subagent, status: End): ProviderEvent[] {
    return [...this.byToolUse.values()]
      .filter((s) => !s.ended && s.turn.runId === parent.turn.runId && this.parentOf(s) === parent.nodeId)
      .flatMap((s) => this.end(s, status === 'completed' ? 'interrupted' : status, null));
  }

  private parentOf(sub: Subagent): NodeId | undefined {
    return this.parents.get(sub.nodeId);
  }

  /**
   * The parent's turn ended. Its foreground subagents end with it (an interrupted turn stops
   * them); background ones go on and end by their own notification: a subagent never holds
   * up, nor ends, its parent's run.
   */
  turnEnded(turn: ItemTurn, completed: boolean): ProviderEvent[] {
    return [...this.byToolUse.values()]
      .filter((s) => !s.ended && !s.background && s.turn.runId === turn.runId)
      .flatMap((s) => this.end(s, completed ? 'completed' : 'interrupted', null));
  }

  /** The agent is gone: every subagent still open ends interrupted (no notification will come). */
  closeAll(): ProviderEvent[] {
    return [...this.byToolUse.values()].filter((s) => !s.ended).flatMap((s) => this.end(s, 'interrupted', null));
  }
}
