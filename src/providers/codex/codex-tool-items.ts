import { userCommandOf } from '../shell-command.js';
import { itemFrames } from './codex-frames.js';

/**
 * What Baton keeps of Codex's tool items (command executions, file changes, MCP and dynamic
 * tool calls, web searches): a title for the node and the item's facts as node detail.
 * Fields Codex leaves out are left out; nothing is invented.
 */
const {
  commandExecution: Command,
  fileChange: FileChange,
  mcpToolCall: Mcp,
  dynamicToolCall: Dynamic,
  webSearch: WebSearch,
} = itemFrames;

type Item = { type: string } & Record<string, unknown>;

export function toolTitle(item: Item): string {
  switch (item.type) {
    case 'commandExecution': {
      const c = Command.safeParse(item).data;
      return c ? userCommandOf(c.command) : 'command';
    }
    case 'fileChange':
      return 'apply_patch';
    case 'mcpToolCall': {
      const m = Mcp.safeParse(item).data;
      return m ? `${m.server}/${m.tool}` : 'mcp tool';
    }
    case 'dynamicToolCall':
      return Dynamic.safeParse(item).data?.tool ?? 'tool';
    case 'webSearch':
      return WebSearch.safeParse(item).data?.query || 'web search';
    default:
      return item.type;
  }
}

/** The item's facts: at its start what it is, at its end what came of it. */
export function toolDetail(item: Item, started: boolean): Record<string, unknown> {
  const defined = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  switch (item.type) {
    case 'commandExecution': {
      const c = Command.safeParse(item).data;
      if (!c) return { tool: 'command' };
      const command = userCommandOf(c.command);
      // The line Codex ran, kept when it differs from the command told.
      const commandLine = command === c.command ? undefined : c.command;
      return started
        ? defined({ tool: 'command', command, commandLine, cwd: c.cwd })
        : defined({ exitCode: c.exitCode, durationMs: c.durationMs, output: c.aggregatedOutput ?? undefined });
    }
    case 'fileChange': {
      const f = FileChange.safeParse(item).data;
      return defined({
        tool: started ? 'file_change' : undefined,
        files: f?.changes.map((c) => ({ path: c.path, kind: c.kind, diff: c.diff })),
      });
    }
    case 'mcpToolCall': {
      const m = Mcp.safeParse(item).data;
      if (!m) return { tool: 'mcp' };
      return started
        ? { tool: 'mcp', server: m.server, name: m.tool, arguments: m.arguments ?? null }
        : defined({ result: m.result ?? null, error: m.error?.message ?? null, durationMs: m.durationMs });
    }
    case 'dynamicToolCall': {
      const d = Dynamic.safeParse(item).data;
      if (!d) return { tool: 'dynamic' };
      return started
        ? defined({ tool: 'dynamic', name: d.tool, namespace: d.namespace, arguments: d.arguments ?? null })
        : defined({ result: d.contentItems ?? null, success: d.success, durationMs: d.durationMs });
    }
    case 'webSearch': {
      const w = WebSearch.safeParse(item).data;
      return defined({
        tool: started ? 'web_search' : undefined,
        query: w?.query,
        action: w?.action ?? null,
        results: started ? undefined : (w?.results ?? null),
      });
    }
    default:
      return {};
  }
}
