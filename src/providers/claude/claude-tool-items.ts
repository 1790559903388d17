import { z } from 'zod';
import type { NodeId, PlanArtifactId, ProviderThreadId, RunAttemptId, RunId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';
import { mcpDetail } from '../mcp-tool-calls.js';
import { FILE_TOOLS, fileChangesOf } from './claude-file-changes.js';
import { toolNodeOf } from './claude-tool-kinds.js';

/**
 * The Claude agent's turn items other than text -> provider events: thinking blocks become
 * reasoning nodes (streamed by `thinking_delta`, whole in the `assistant` message), tool uses
 * become tool nodes completed (or failed) by their `tool_result`, whose text is the node's
 * `output`. Three tools are Baton concepts rather than tool nodes: `TodoWrite` is the turn's
 * todo list, `ExitPlanMode` a proposed plan, and `AskUserQuestion` a user-input request
 * (opened by the permissions). Every other tool use is a tool node shaped as every provider
 * shapes that kind of tool (claude-tool-kinds.ts).
 */

/** The attempt items belong to. */
export interface ItemTurn {
  runId: RunId;
  attemptId: RunAttemptId;
  rootNodeId: NodeId;
}

/** The attempt a turn runs, and what Baton named it. */
export interface ClaudeTurnRef extends ItemTurn {
  /** The uuid of the user message Baton sent: the turn's native id (the agent echoes it); null for a turn the agent began of its own. */
  uuid: string | null;
  /** The provider thread the turn runs on (the session id is bound to it). */
  providerThreadId: ProviderThreadId | null;
}

export const ToolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});
export const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.unknown().optional(),
  is_error: z.boolean().optional(),
});
const ThinkingBlock = z.looseObject({ type: z.literal('thinking'), thinking: z.string() });
const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

/** `TodoWrite`'s input: the whole list each time. */
const TodoInput = z.looseObject({
  todos: z.array(z.looseObject({ content: z.string(), status: z.enum(['pending', 'in_progress', 'completed']) })),
});
/** `ExitPlanMode`'s input: the agent fills `plan` from its plan file (a model may also send it). */
const ExitPlanInput = z.looseObject({ plan: z.string().min(1) });

/** Tools that are not tool nodes. */
const PLANNING_TOOLS = new Set(['TodoWrite', 'ExitPlanMode', 'AskUserQuestion']);

/** The text of a tool result's content, when it is cheap to tell. */
export function resultText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.flatMap((b) => {
    const text = TextBlock.safeParse(b);
    return text.success ? [text.data.text] : [];
  });
  return texts.length ? texts.join('\n') : null;
}

/** A reasoning node being written, and the text its deltas brought. */
interface OpenThinking {
  nodeId: NodeId;
  streamed: string;
}

export class ClaudeItems {
  private readonly thinking: OpenThinking[] = [];
  /** tool_use id -> its node, and the tool's name. */
  private readonly tools = new Map<string, { nodeId: NodeId; name: string }>();
  /** Tool uses of an MCP server's tool, by tool_use id: their server (their results are MCP results). */
  private readonly mcpCalls = new Map<string, string>();
  /** TodoWrite uses waiting on their result: the list they set. */
  private readonly todos = new Map<string, z.infer<typeof TodoInput>>();
  /** Planning tool uses: their results make no node events. */
  private readonly planning = new Set<string>();
  /** The turn's todo list (one artifact a turn, updated in place). */
  private todoPlan: PlanArtifactId | null = null;

  constructor(
    private readonly threadId: ThreadId,
    private readonly ids: IdSource,
  ) {}

  /** The node of a tool use, if it has one. */
  toolNode(toolUseId: string): NodeId | null {
    return this.tools.get(toolUseId)?.nodeId ?? null;
  }

  /** The latest call of a tool of MCP server `server` still running (its tool_use id), if one is. */
  runningMcpCall(server: string): string | null {
    return [...this.mcpCalls].findLast(([, s]) => s === server)?.[0] ?? null;
  }

  private on(ref: ItemTurn) {
    return { threadId: this.threadId, runId: ref.runId };
  }

  private started(ref: ItemTurn, kind: 'reasoning' | 'tool_call', title: string | null): [NodeId, ProviderEvent] {
    const nodeId = this.ids.next('node');
    return [
      nodeId,
      {
        type: 'node.started',
        ...this.on(ref),
        nodeId,
        parentNodeId: ref.rootNodeId,
        attemptId: ref.attemptId,
        kind,
        title,
      },
    ];
  }

  /** A thinking block began streaming (`content_block_start`). */
  thinkingStarted(ref: ItemTurn): ProviderEvent[] {
    const [nodeId, event] = this.started(ref, 'reasoning', null);
    this.thinking.push({ nodeId, streamed: '' });
    return [event];
  }

  /** A `thinking_delta` of the block being written. */
  thinkingDelta(delta: string, ref: ItemTurn): ProviderEvent[] {
    const open = this.thinking.at(-1);
    if (!open || !delta) return [];
    open.streamed += delta;
    return [{ type: 'node.delta', ...this.on(ref), nodeId: open.nodeId, delta }];
  }

  /** A non-text block of an `assistant` message. */
  block(block: unknown, ref: ItemTurn): ProviderEvent[] {
    const thinking = ThinkingBlock.safeParse(block);
    if (thinking.success) return this.thought(thinking.data.thinking, ref);
    const tool = ToolUseBlock.safeParse(block);
    if (!tool.success || this.tools.has(tool.data.id) || this.planning.has(tool.data.id)) return [];
    const { id, name, input } = tool.data;
    if (PLANNING_TOOLS.has(name)) return this.planningTool(id, name, input, ref);
    const { title, detail, mcpServer } = toolNodeOf(name, input, id);
    const [nodeId, event] = this.started(ref, 'tool_call', title);
    this.tools.set(id, { nodeId, name });
    if (mcpServer) this.mcpCalls.set(id, mcpServer);
    return [event, { type: 'node.detail', ...this.on(ref), nodeId, text: null, detail }];
  }

  /** The whole thinking block: the oldest streamed one is it (one arriving unstreamed gets its node now). */
  private thought(text: string, ref: ItemTurn): ProviderEvent[] {
    const open = this.thinking.shift();
    const events: ProviderEvent[] = [];
    let nodeId = open?.nodeId;
    if (!nodeId) {
      const [id, event] = this.started(ref, 'reasoning', null);
      nodeId = id;
      events.push(event);
    }
    events.push(
      { type: 'node.detail', ...this.on(ref), nodeId, text, detail: {} },
      { type: 'node.completed', ...this.on(ref), nodeId, status: 'completed' },
    );
    return events;
  }

  private planningTool(id: string, name: string, input: unknown, ref: ItemTurn): ProviderEvent[] {
    this.planning.add(id);
    if (name === 'TodoWrite') {
      const todo = TodoInput.safeParse(input);
      if (todo.success) this.todos.set(id, todo.data);
      return [];
    }
    if (name !== 'ExitPlanMode') return [];
    // The plan is proposed when the agent asks to leave plan mode, whatever the answer.
    const plan = ExitPlanInput.safeParse(input);
    if (!plan.success) return [];
    return [
      {
        type: 'plan.updated',
        ...this.on(ref),
        nodeId: ref.rootNodeId,
        planId: this.ids.next('plan'),
        kind: 'proposed_plan',
        text: plan.data.plan,
        steps: [],
        final: true,
      },
    ];
  }

  /**
   * A `tool_result` block: its tool's node gets the result's text as its `output` (as a
   * Codex command's node does; the node's text stays its title) and completes, or fails on
   * an error. An MCP call's result is its `result`, as every provider gives one; a file
   * tool's changes are its `files` (read from the message's `tool_use_result`).
   */
  result(block: unknown, ref: ItemTurn, toolUseResult?: unknown): ProviderEvent[] {
    const result = ToolResultBlock.safeParse(block);
    if (!result.success) return [];
    const { tool_use_id: toolUseId, is_error: isError } = result.data;
    const todo = this.todos.get(toolUseId);
    if (todo) {
      this.todos.delete(toolUseId);
      return isError ? [] : [this.todoList(todo, ref)];
    }
    const tool = this.tools.get(toolUseId);
    if (!tool) return [];
    const { nodeId } = tool;
    this.tools.delete(toolUseId);
    const failed = isError === true;
    const output = resultText(result.data.content);
    const files = !failed && FILE_TOOLS.has(tool.name) ? fileChangesOf(toolUseResult) : null;
    const outcome = this.mcpCalls.delete(toolUseId)
      ? mcpDetail(null, { status: failed ? 'failed' : 'completed', rawOutput: result.data.content })
      : { ...(output === null ? {} : { output }), ...(files ? { files } : {}) };
    return [
      { type: 'node.detail', ...this.on(ref), nodeId, text: null, detail: { isError: failed, ...outcome } },
      { type: 'node.completed', ...this.on(ref), nodeId, status: failed ? 'failed' : 'completed' },
    ];
  }

  /** The list a TodoWrite set, as the turn's todo list (Baton finalizes it when the turn ends). */
  private todoList(todo: z.infer<typeof TodoInput>, ref: ItemTurn): ProviderEvent {
    this.todoPlan ??= this.ids.next('plan');
    return {
      type: 'plan.updated',
      ...this.on(ref),
      nodeId: ref.rootNodeId,
      planId: this.todoPlan,
      kind: 'todo_list',
      text: null,
      steps: todo.todos.map((t) => ({ text: t.content, status: t.status })),
    };
  }

  /** The turn ended: what it left open ends with it (a streamed thinking keeps what streamed). */
  end(completed: boolean, ref: ItemTurn): ProviderEvent[] {
    const status = completed ? 'completed' : 'interrupted';
    const events: ProviderEvent[] = [];
    for (const open of this.thinking.splice(0))
      events.push(
        { type: 'node.detail', ...this.on(ref), nodeId: open.nodeId, text: open.streamed, detail: {} },
        { type: 'node.completed', ...this.on(ref), nodeId: open.nodeId, status },
      );
    for (const { nodeId } of this.tools.values())
      events.push({ type: 'node.completed', ...this.on(ref), nodeId, status });
    this.tools.clear();
    this.mcpCalls.clear();
    this.todos.clear();
    this.planning.clear();
    this.todoPlan = null;
    return events;
  }
}
