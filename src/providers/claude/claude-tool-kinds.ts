import { z } from 'zod';
import { mcpCallNamed, mcpDetail, mcpTitle } from '../mcp-tool-calls.js';
import { FILE_TOOLS } from './claude-file-changes.js';

/**
 * How a Claude tool use is told as a tool node: its title, and the detail every provider
 * gives that kind of tool (Codex's items are the model: codex-tool-items.ts). A `Bash` use is
 * a command titled by its command line, a `WebSearch` a web search titled by its query, a
 * file tool a file change (its files come with its result: claude-file-changes.ts), an MCP
 * server's tool an MCP call titled `SERVER/TOOL`; any other tool keeps its name.
 */

const BashInput = z.looseObject({ command: z.string().min(1) });
const SearchInput = z.looseObject({ query: z.string().min(1) });

export interface ToolNodeShape {
  title: string;
  detail: Record<string, unknown>;
  /** The MCP server whose tool it is, if it is one (its result is then an MCP result). */
  mcpServer: string | null;
}

export function toolNodeOf(name: string, input: unknown, toolUseId: string): ToolNodeShape {
  const mcp = mcpCallNamed(name, input);
  if (mcp) return { title: mcpTitle(mcp), detail: { ...mcpDetail(mcp, null), toolUseId }, mcpServer: mcp.server };
  const shape = (title: string, detail: Record<string, unknown>): ToolNodeShape => ({ title, detail, mcpServer: null });
  const bash = name === 'Bash' ? BashInput.safeParse(input).data : undefined;
  if (bash) return shape(bash.command, { tool: 'command', name, command: bash.command, toolUseId, input });
  const search = name === 'WebSearch' ? SearchInput.safeParse(input).data : undefined;
  if (search) {
    const { query } = search;
    return shape(query, { tool: 'web_search', name, query, action: { type: 'search', query }, toolUseId, input });
  }
  if (FILE_TOOLS.has(name)) return shape(name, { tool: 'file_change', name, toolUseId, input });
  return shape(name, { tool: name, toolUseId, input });
}
