import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProviderSessionId, ThreadId } from '../../src/domain/ids.js';
import type { ProviderEvent } from '../../src/domain/provider-events.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { acpMcpServers, mcpCallOf } from '../../src/providers/acp/acp-mcp.js';
import { AcpNormalizer } from '../../src/providers/acp/acp-normalizer.js';
import { readTranscript } from '../../src/providers/transport/transcript.js';
import { acpTranscriptDir } from './acp-replay-channels.js';

/**
 * MCP servers as ACP params, and MCP calls on tool nodes: the normalizer on its own, fed the
 * session updates each built-in agent sent in its recorded mcp_tool_call transcript.
 */
const Update = z.object({
  method: z.literal('session/update'),
  params: z.object({ update: z.looseObject({ sessionUpdate: z.string() }) }),
});

/** The session updates an agent sent in its mcp_tool_call recording, in order. */
function recordedUpdates(agent: string): Record<string, unknown>[] {
  const { entries } = readTranscript(`${acpTranscriptDir(agent)}mcp_tool_call.ndjson`);
  return entries.flatMap((e) => {
    const u = e.kind === 'emit_inbound' ? Update.safeParse(e.frame) : null;
    return u?.success ? [u.data.params.update] : [];
  });
}

/** One prompt's events, from these updates to its end. */
function run(updates: unknown[]): ProviderEvent[] {
  const ids = new SequentialIds('m');
  const n = new AcpNormalizer({
    threadId: ThreadId.parse('thr_mcp'),
    sessionId: ProviderSessionId.parse('psess_mcp'),
    ids,
  });
  const events = n.begin({
    runId: ids.next('run'),
    attemptId: ids.next('attempt'),
    rootNodeId: ids.next('node'),
    providerThreadId: null,
  });
  for (const update of updates) events.push(...n.normalize({ kind: 'update', update }));
  return [...events, ...n.normalize({ kind: 'stop', stopReason: 'end_turn' })];
}

/** The tool node: its title, its detail merged as the projection merges it, and how it ended. */
function toolNode(events: ProviderEvent[]) {
  const started = events.filter((e) => e.type === 'node.started' && e.kind === 'tool_call');
  expect(started).toHaveLength(1);
  const { nodeId, title } = started[0] as Extract<ProviderEvent, { type: 'node.started' }>;
  const detail = events.reduce<Record<string, unknown>>(
    (d, e) => (e.type === 'node.detail' && e.nodeId === nodeId ? { ...d, ...e.detail } : d),
    {},
  );
  const ends = events.flatMap((e) => (e.type === 'node.completed' && e.nodeId === nodeId ? [e.status] : []));
  return { title, detail, ends };
}

describe('MCP servers on ACP sessions', () => {
  it('are stdio entries by name, with their environment as name/value pairs', () => {
    expect(
      acpMcpServers({
        echo: { command: '/usr/bin/node', args: ['echo.mjs'] },
        db: { command: '/opt/db-mcp', args: [], env: { DB_URL: 'sqlite://x' } },
      }),
    ).toEqual([
      { name: 'echo', command: '/usr/bin/node', args: ['echo.mjs'], env: [] },
      { name: 'db', command: '/opt/db-mcp', args: [], env: [{ name: 'DB_URL', value: 'sqlite://x' }] },
    ]);
    expect(acpMcpServers()).toEqual([]);
  });
});

describe.each(['claude-agent-acp', 'codex-acp'])('an MCP call as %s sends it (recorded)', (agent) => {
  it('is a tool node titled server/tool with the call and its result', () => {
    const { title, detail, ends } = toolNode(run(recordedUpdates(agent)));
    expect(title).toBe('echo/echo');
    expect(detail).toMatchObject({
      toolCallId: 'call_mcp_echo',
      tool: 'mcp',
      server: 'echo',
      name: 'echo',
      arguments: { text: 'hi' },
      result: { content: [{ type: 'text', text: 'echo: hi' }] },
      error: null,
    });
    expect(ends).toEqual(['completed']);
  });

  it('a failed call keeps its error text', () => {
    const updates = recordedUpdates(agent).map((u) =>
      u.status === 'completed'
        ? {
            ...u,
            status: 'failed',
            rawOutput: Array.isArray(u.rawOutput)
              ? [{ type: 'text', text: 'no such text' }]
              : { content: [{ type: 'text', text: 'no such text' }], isError: true },
          }
        : u,
    );
    const { detail, ends } = toolNode(run(updates));
    expect(detail).toMatchObject({ tool: 'mcp', error: 'no such text' });
    expect(ends).toEqual(['failed']);
  });
});

describe('what is no MCP call', () => {
  it('a Claude Code tool not named mcp__SERVER__TOOL, or a codex-acp title that does not name the input', () => {
    expect(mcpCallOf({ _meta: { claudeCode: { toolName: 'Bash' } }, rawInput: { command: 'ls' } })).toBeNull();
    expect(mcpCallOf({ title: 'Tool: a/b', rawInput: { server: 'echo', tool: 'echo' } })).toBeNull();
    expect(mcpCallOf({ title: 'ls', kind: 'execute', rawInput: { command: ['ls'] } })).toBeNull();
  });

  it("a server's tool whose name has __ in it is split as Claude Code splits it", () => {
    expect(mcpCallOf({ _meta: { claudeCode: { toolName: 'mcp__db__run__query' } }, rawInput: { q: 1 } })).toEqual({
      server: 'db',
      tool: 'run__query',
      arguments: { q: 1 },
    });
  });

  it('a plain tool call keeps its own title and no MCP detail', () => {
    const { title, detail } = toolNode(
      run([
        { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read notes.md', kind: 'read', status: 'completed' },
      ]),
    );
    expect(title).toBe('Read notes.md');
    // Its ACP kind, as every call that is no MCP call has it.
    expect(detail).toMatchObject({ tool: 'read', kind: 'read' });
    expect([detail.server, detail.name]).toEqual([undefined, undefined]);
  });
});
