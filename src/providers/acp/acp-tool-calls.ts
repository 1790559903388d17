import { z } from 'zod';
import type { NodeId, RunId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import { fileChangeOf } from '../file-changes.js';
import { mcpDetail } from '../mcp-tool-calls.js';
import { mcpCallOf } from './acp-mcp.js';
import { scriptOf, userCommandOf } from '../shell-command.js';

/**
 * ACP's `tool_call` / `tool_call_update` frames -> tool nodes, told as every provider tells
 * one: the node starts on first sight and completes (or fails) with the call; a shell
 * command (`kind: execute`) is `tool: 'command'` with its `command`, as Codex's and Claude's
 * are; what the call returned is the node's `output` (a string: the agent's raw output when
 * it is text or a command's output, else its content's text), a web search is
 * `tool: 'web_search'` titled by its query, its `diff` contents are its `files` (as every
 * provider's file changes: file-changes.ts), and a call the agent renames (claude-agent-acp
 * opens every command as "Terminal") is renamed. An MCP server's tool keeps the detail every
 * provider gives one (acp-mcp.ts).
 */

const Text = z.looseObject({ type: z.literal('text'), text: z.string() });
/** The ACP kinds that change files: told as file changes, as on Codex and Claude. */
const FILE_KINDS: ReadonlySet<string> = new Set(['edit', 'delete', 'move']);
/** ACP's `diff` content: a file's text before (null: new) and after. */
const DiffContent = z.looseObject({
  type: z.literal('diff'),
  path: z.string().min(1),
  oldText: z.string().nullable().optional(),
  newText: z.string(),
});

export const ToolFields = {
  toolCallId: z.string(),
  title: z.string().nullable().optional(),
  kind: z.string().nullable().optional(),
  status: z.enum(['pending', 'in_progress', 'completed', 'failed']).nullable().optional(),
  content: z
    .array(z.looseObject({ type: z.string() }))
    .nullable()
    .optional(),
  locations: z
    .array(z.looseObject({ path: z.string(), line: z.number().nullable().optional() }))
    .nullable()
    .optional(),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
};
const ToolUpdate = z.looseObject({ sessionUpdate: z.enum(['tool_call', 'tool_call_update']), ...ToolFields });
export type ToolUpdate = z.infer<typeof ToolUpdate>;

/** A command's input: claude-agent-acp gives the command line, codex-acp its argv and the command it parsed. */
const CommandInput = z.looseObject({
  command: z.union([z.string(), z.array(z.string())]).optional(),
  parsed_cmd: z.array(z.looseObject({ cmd: z.string().optional() })).optional(),
});
/** codex-acp's raw output of a command: Codex's own exec result. */
const CommandOutput = z.looseObject({
  aggregated_output: z.string().optional(),
  formatted_output: z.string().optional(),
});

/** The command line a shell call runs, as the user would type it, if the frame says. */
export function commandOf(rawInput: unknown): string | null {
  const input = CommandInput.safeParse(rawInput).data;
  if (!input) return null;
  // `bash -lc "..."`: the script is the command, as the model wrote it.
  const script = Array.isArray(input.command) ? scriptOf(input.command) : null;
  if (script !== null) return script;
  if (typeof input.command === 'string') return input.command ? userCommandOf(input.command) : null;
  const parsed = input.parsed_cmd?.map((p) => p.cmd).filter((c): c is string => !!c);
  if (parsed?.length) return parsed.join(' && ');
  return input.command?.length ? input.command.join(' ') : null;
}

/** A search's input: its query, and Codex's action where codex-acp passes it on. */
const SearchInput = z.looseObject({ query: z.string().min(1), action: z.looseObject({ type: z.string() }).optional() });

/** A web search as Codex's web search node tells it: its query and the action it took. */
export interface WebSearch {
  query: string;
  action: Record<string, unknown>;
}

/**
 * The web search a call is, if it is one: a `fetch` or `search` kind whose input is a query
 * (claude-agent-acp's WebSearch, codex-acp's web search item).
 */
export function webSearchOf(kind: string | null, rawInput: unknown): WebSearch | null {
  if (kind !== 'fetch' && kind !== 'search') return null;
  const input = SearchInput.safeParse(rawInput).data;
  return input ? { query: input.query, action: input.action ?? { type: 'search', query: input.query } } : null;
}

/** What a call returned, as text, if the frame carries it. */
export function outputOf(u: Pick<ToolUpdate, 'rawOutput' | 'content'>): string | null {
  if (typeof u.rawOutput === 'string') return u.rawOutput;
  const command = CommandOutput.safeParse(u.rawOutput).data;
  const fromCommand = command?.aggregated_output ?? command?.formatted_output;
  if (fromCommand !== undefined) return fromCommand;
  const texts = (u.content ?? []).flatMap((c) => {
    const inner = c.type === 'content' ? Text.safeParse(c.content) : null;
    return inner?.success ? [inner.data.text] : [];
  });
  return texts.length ? texts.join('\n') : null;
}

interface ToolCall {
  nodeId: NodeId;
  title: string | null;
  /** The ACP kind its frames gave last (an update may leave it out). */
  kind: string | null;
  /** The web search it is, once a frame said. */
  search: WebSearch | null;
  done: boolean;
  /** Its first frame named an MCP server's tool. */
  mcp: boolean;
}

/** Where a turn's tool nodes go: the run, and the node a new one starts under. */
export interface ToolTurn {
  threadId: ThreadId;
  runId: RunId;
  start(nodeId: NodeId, title: string | null): ProviderEvent;
}

/** The tool calls of one prompt. */
export class AcpToolCalls {
  private readonly calls = new Map<string, ToolCall>();

  constructor(private readonly newNode: () => NodeId) {}

  has(toolCallId: string): boolean {
    return this.calls.has(toolCallId);
  }

  nodeOf(toolCallId: string): NodeId | null {
    return this.calls.get(toolCallId)?.nodeId ?? null;
  }

  /** A tool call or its update: the node (started on first sight), what it says, and its end. */
  update(u: ToolUpdate, turn: ToolTurn): ProviderEvent[] {
    const on = { threadId: turn.threadId, runId: turn.runId };
    const events: ProviderEvent[] = [];
    let call = this.calls.get(u.toolCallId);
    const mcp = mcpCallOf(u);
    const search = webSearchOf(u.kind ?? call?.kind ?? null, u.rawInput);
    // Titled as the Codex provider titles these: an MCP call SERVER/TOOL, a web search its query.
    const title = search?.query ?? u.title ?? null;
    let renamed: string | undefined;
    if (!call) {
      const first = mcp ? `${mcp.server}/${mcp.tool}` : title;
      call = { nodeId: this.newNode(), title: first, kind: null, search: null, done: false, mcp: mcp !== null };
      this.calls.set(u.toolCallId, call);
      events.push(turn.start(call.nodeId, first));
    } else if (!call.mcp && title && title !== call.title) {
      call.title = renamed = title;
    }
    call.kind = u.kind ?? call.kind;
    call.search = search ?? call.search;
    const ended = u.status === 'completed' || u.status === 'failed' ? u.status : null;
    events.push({
      type: 'node.detail',
      ...on,
      nodeId: call.nodeId,
      text: null,
      detail: call.mcp
        ? { ...this.common(u), ...mcpDetail(mcp, ended && { status: ended, rawOutput: u.rawOutput }) }
        : { ...this.common(u), ...this.outcome(u, call) },
      ...(renamed ? { title: renamed } : {}),
    });
    if (!call.done && ended) {
      call.done = true;
      events.push({ type: 'node.completed', ...on, nodeId: call.nodeId, status: ended });
    }
    return events;
  }

  /** The prompt ended: the calls still open end with it. */
  end(on: { threadId: ThreadId; runId: RunId }, status: 'completed' | 'interrupted'): ProviderEvent[] {
    const events: ProviderEvent[] = [...this.calls.values()]
      .filter((c) => !c.done)
      .map((c) => ({ type: 'node.completed', ...on, nodeId: c.nodeId, status }));
    this.calls.clear();
    return events;
  }

  /** What every call's frames say of it. */
  private common(u: ToolUpdate): Record<string, unknown> {
    const detail: Record<string, unknown> = { toolCallId: u.toolCallId };
    if (u.kind) detail.kind = u.kind;
    if (u.title) detail.title = u.title;
    if (u.status) detail.status = u.status;
    if (u.locations?.length) detail.locations = u.locations;
    if (u.rawInput !== undefined) detail.input = u.rawInput;
    const diffs = (u.content ?? []).flatMap((c) => DiffContent.safeParse(c).data ?? []);
    if (diffs.length) {
      detail.diffs = diffs.map(({ path, oldText, newText }) => ({ path, oldText: oldText ?? null, newText }));
      detail.files = diffs.map((d) => fileChangeOf(d.path, d.oldText ?? null, d.newText));
    }
    const terminals = (u.content ?? []).filter((c) => c.type === 'terminal');
    if (terminals.length) detail.terminals = terminals.map((c) => c.terminalId);
    return detail;
  }

  /** A call that is no MCP call: what tool it is (a command with its command line) and what it returned. */
  private outcome(u: ToolUpdate, { kind, search }: ToolCall): Record<string, unknown> {
    const detail: Record<string, unknown> = {};
    if (search) Object.assign(detail, { tool: 'web_search', ...search });
    else if (kind) detail.tool = kind === 'execute' ? 'command' : FILE_KINDS.has(kind) ? 'file_change' : kind;
    const command = kind === 'execute' ? commandOf(u.rawInput) : null;
    if (command) detail.command = command;
    const output = outputOf(u);
    if (output !== null) detail.output = output;
    if (u.rawOutput !== undefined && typeof u.rawOutput !== 'string') detail.rawOutput = u.rawOutput;
    return detail;
  }
}
