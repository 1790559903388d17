import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';

/**
 * The MCP servers Baton hands every ACP session it opens (session/new, load, resume, fork).
 * The shape is Codex's (codex-home.ts), by name, plus an optional environment: ACP passes
 * stdio servers, which every agent must run (http and sse are the agent's to advertise);
 * ACP asks for an absolute `command`.
 */
export type AcpMcpServers = Record<string, { command: string; args: string[]; env?: Record<string, string> }>;

/** The servers as ACP's `mcpServers` param: stdio entries, in the map's order. */
export function acpMcpServers(servers: AcpMcpServers = {}): acp.McpServerStdio[] {
  return Object.entries(servers).map(([name, s]) => ({
    name,
    command: s.command,
    args: s.args,
    env: Object.entries(s.env ?? {}).map(([envName, value]) => ({ name: envName, value })),
  }));
}

/**
 * Baton's own orchestrator MCP server as an ACP `http` server named `baton`, with the
 * session's credential as its bearer token; only for an agent that advertises http MCP
 * servers (`mcpCapabilities.http`).
 */
export function batonMcpServer(baton: { url: string; token: string }): acp.McpServer {
  return {
    type: 'http',
    name: 'baton',
    url: baton.url,
    headers: [{ name: 'Authorization', value: `Bearer ${baton.token}` }],
  };
}

/**
 * An MCP tool call, as far as an agent's tool-call frames tell it. ACP has no MCP kind of
 * tool call (`kind` is `other` or absent), so each built-in agent's own form is read, as
 * recorded (test/fixtures/transcripts/acp/<agent>/mcp_tool_call.ndjson):
 * - claude-agent-acp 0.23.1 names the tool as Claude Code does, `mcp__SERVER__TOOL`, in
 *   `_meta.claudeCode.toolName` on every frame; `rawInput` is the arguments (`{}` on the first
 *   frame, whole on the next), `rawOutput` the tool result's content blocks.
 * - codex-acp 0.16.0 titles it `Tool: SERVER/TOOL` with `rawInput: { server, tool, arguments }`
 *   on its first frame; the last carries `rawOutput`, the MCP result (`{ content, isError }`).
 * Any other frame is no MCP call: its node stays a plain tool call.
 */
export interface AcpMcpCall {
  server: string;
  tool: string;
  /** The call's arguments, when this frame carries them. */
  arguments?: unknown;
}

const ClaudeCall = z.looseObject({
  _meta: z.looseObject({ claudeCode: z.looseObject({ toolName: z.string().regex(/^mcp__.+__.+$/) }) }),
  rawInput: z.unknown().optional(),
});
const CodexCall = z.looseObject({
  title: z.string(),
  rawInput: z.looseObject({ server: z.string().min(1), tool: z.string().min(1), arguments: z.unknown().optional() }),
});

/** The MCP call a tool-call frame names, if it names one. */
export function mcpCallOf(frame: unknown): AcpMcpCall | null {
  const claude = ClaudeCall.safeParse(frame);
  if (claude.success) {
    // Claude Code's own split: the server is the part after `mcp__`, the tool the rest.
    const [, server, ...tool] = claude.data._meta.claudeCode.toolName.split('__');
    const args = claude.data.rawInput;
    return { server: server!, tool: tool.join('__'), ...(args !== undefined ? { arguments: args } : {}) };
  }
  const codex = CodexCall.safeParse(frame);
  if (codex.success) {
    const { server, tool, arguments: args } = codex.data.rawInput;
    if (codex.data.title !== `Tool: ${server}/${tool}`) return null;
    return { server, tool, arguments: args ?? null };
  }
  return null;
}

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
  call: AcpMcpCall | null,
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
