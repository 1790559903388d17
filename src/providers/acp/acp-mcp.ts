import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import { mcpCallNamed, type McpCall } from '../mcp-tool-calls.js';
import type { McpServers } from '../mcp-servers.js';

/**
 * The user's MCP servers as ACP's `mcpServers` param of every session Baton opens (session/new,
 * load, resume, fork): stdio entries, in the map's order. ACP passes stdio servers, which
 * every agent must run (http and sse are the agent's to advertise).
 */
export function acpMcpServers(servers: McpServers = {}): acp.McpServerStdio[] {
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

const ClaudeCall = z.looseObject({
  _meta: z.looseObject({ claudeCode: z.looseObject({ toolName: z.string().regex(/^mcp__.+__.+$/) }) }),
  rawInput: z.unknown().optional(),
});
const CodexCall = z.looseObject({
  title: z.string(),
  rawInput: z.looseObject({ server: z.string().min(1), tool: z.string().min(1), arguments: z.unknown().optional() }),
});

/** The MCP call a tool-call frame names, if it names one. */
export function mcpCallOf(frame: unknown): McpCall | null {
  const claude = ClaudeCall.safeParse(frame);
  if (claude.success) {
    return mcpCallNamed(claude.data._meta.claudeCode.toolName, claude.data.rawInput);
  }
  const codex = CodexCall.safeParse(frame);
  if (codex.success) {
    const { server, tool, arguments: args } = codex.data.rawInput;
    if (codex.data.title !== `Tool: ${server}/${tool}`) return null;
    return { server, tool, arguments: args ?? null };
  }
  return null;
}
