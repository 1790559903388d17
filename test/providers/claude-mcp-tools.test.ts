import { describe, expect, it } from 'vitest';
import { NodeId, RunAttemptId, RunId, ThreadId } from '../../src/domain/ids.js';
import type { ProviderEvent } from '../../src/domain/provider-events.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { ClaudeItems, type ItemTurn } from '../../src/providers/claude/claude-tool-items.js';
import { mcpCallNamed } from '../../src/providers/mcp-tool-calls.js';

/**
 * The Claude agent's calls of an MCP server's tool (`mcp__SERVER__TOOL`) as tool nodes with
 * the detail every provider gives one; the live and replayed `mcp_tool_call` scenario runs
 * the real agent and a real stdio server.
 */
const turn: ItemTurn = {
  runId: RunId.parse('run_mcp'),
  attemptId: RunAttemptId.parse('att_mcp'),
  rootNodeId: NodeId.parse('node_root'),
};

function items() {
  return new ClaudeItems(ThreadId.parse('thr_mcp'), new SequentialIds('m'));
}

const details = (events: ProviderEvent[]) => events.flatMap((e) => (e.type === 'node.detail' ? [e.detail] : []));

describe('MCP tool calls on Claude', () => {
  it('a call is a tool node titled SERVER/TOOL with its arguments, and its result the MCP content', () => {
    const claude = items();
    const started = claude.block({ type: 'tool_use', id: 'tu_1', name: 'mcp__db__run_query', input: { q: 1 } }, turn);
    expect(started[0]).toMatchObject({ type: 'node.started', kind: 'tool_call', title: 'db/run_query' });
    expect(details(started)).toEqual([
      { tool: 'mcp', server: 'db', name: 'run_query', arguments: { q: 1 }, toolUseId: 'tu_1' },
    ]);
    const content = [{ type: 'text', text: '3 rows' }];
    const ended = claude.result({ type: 'tool_result', tool_use_id: 'tu_1', content }, turn);
    expect(details(ended)).toEqual([{ isError: false, result: { content }, error: null }]);
    expect(ended.at(-1)).toMatchObject({ type: 'node.completed', status: 'completed' });
  });

  it('a failed call fails its node with the error text; another tool keeps its own detail', () => {
    const claude = items();
    claude.block({ type: 'tool_use', id: 'tu_2', name: 'mcp__db__run_query', input: {} }, turn);
    const failed = claude.result(
      { type: 'tool_result', tool_use_id: 'tu_2', is_error: true, content: [{ type: 'text', text: 'no such table' }] },
      turn,
    );
    expect(details(failed)[0]).toMatchObject({ isError: true, error: 'no such table' });
    expect(failed.at(-1)).toMatchObject({ type: 'node.completed', status: 'failed' });

    const bash = claude.block({ type: 'tool_use', id: 'tu_3', name: 'Bash', input: { command: 'ls' } }, turn);
    expect(bash[0]).toMatchObject({ title: 'ls' });
    expect(details(bash)).toEqual([
      { tool: 'command', name: 'Bash', command: 'ls', toolUseId: 'tu_3', input: { command: 'ls' } },
    ]);
    expect(details(claude.result({ type: 'tool_result', tool_use_id: 'tu_3', content: 'a b' }, turn))).toEqual([
      { isError: false, output: 'a b' },
    ]);
  });

  it('only a name of the form mcp__SERVER__TOOL names a call; a tool name may hold __ itself', () => {
    expect(mcpCallNamed('mcp__db__run__query')).toEqual({ server: 'db', tool: 'run__query' });
    for (const name of ['Bash', 'mcp__db', 'mcp__db__', 'mcp____tool', 'xmcp__db__q'])
      expect(mcpCallNamed(name)).toBeNull();
  });
});
