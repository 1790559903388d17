import { z } from 'zod';

/**
 * An MCP tool call as a tool node shows it, whichever agent made it: Codex's `mcpToolCall`
 * item is the model (codex-tool-items.ts); Claude's tool uses and ACP's tool-call frames are
 * read into the same detail.
 */
export interface McpCall {
  server: string;
  tool: string;
  /** The call's arguments, when the frame read carries them. */
  arguments?: unknown;
}

/**
 * The call a Claude Code tool name names (`mcp__SERVER__TOOL`, as the Claude agent and
 * claude-agent-acp name an MCP server's tool), or null for any other tool. Claude Code's own
 * split: the server is the part after `mcp__`, the tool the rest.
 */
export function mcpCallNamed(toolName: string, args?: unknown): McpCall | null {
  const [prefix, server, ...tool] = toolName.split('__');
  if (prefix !== 'mcp' || !server || tool.length === 0 || !tool.join('__')) return null;
  return { server, tool: tool.join('__'), ...(args !== undefined ? { arguments: args } : {}) };
}

/** The title of an MCP call's tool node: `SERVER/TOOL`, as Codex's is. */
export const mcpTitle = (call: McpCall): string => `${call.server}/${call.tool}`;

const Content = z.array(z.looseObject({ type: z.string() }));
/** An MCP `CallToolResult` (codex-acp's `rawOutput`). */
const CallResult = z.looseObject({ content: Content, structuredContent: z.unknown().optional() });
const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

/**
 * The detail of an MCP call's tool node, as Baton's Codex provider gives it (codex-tool-items.ts):
 * `tool: 'mcp'`, server, name and arguments from the call; at its end, `result` (the content
 * blocks) and `error` (null, or the failed call's text).
 */
export function mcpDetail(
  call: McpCall | null,
  end: { status: 'completed' | 'failed'; rawOutput: unknown } | null,
): Record<string, unknown> {
  const detail: Record<string, unknown> = {};
  if (call) {
    Object.assign(detail, { tool: 'mcp', server: call.server, name: call.tool });
    if (call.arguments !== undefined) detail.arguments = call.arguments;
  }
  if (!end) return detail;
  const asResult = CallResult.safeParse(end.rawOutput);
  const asContent = Content.safeParse(end.rawOutput);
  const result = asResult.success
    ? {
        content: asResult.data.content,
        ...(asResult.data.structuredContent !== undefined
          ? { structuredContent: asResult.data.structuredContent }
          : {}),
      }
    : asContent.success
      ? { content: asContent.data }
      : null;
  if (end.status === 'completed') return { ...detail, result, error: null };
  const text = (result?.content ?? []).flatMap((c) => {
    const t = TextBlock.safeParse(c);
    return t.success ? [t.data.text] : [];
  });
  const message = text.length
    ? text.join('\n')
    : typeof end.rawOutput === 'string'
      ? end.rawOutput
      : 'the MCP tool call failed';
  return { ...detail, result, error: message };
}
