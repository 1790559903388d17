import { describe, expect, it } from 'vitest';
import { NodeId, RunId, ThreadId } from '../../src/domain/ids.js';
import type { ProviderEvent } from '../../src/domain/provider-events.js';
import {
  AcpToolCalls,
  commandOf,
  outputOf,
  webSearchOf,
  type ToolUpdate,
} from '../../src/providers/acp/acp-tool-calls.js';
import { readTranscript } from '../../src/providers/transport/transcript.js';

/**
 * ACP tool calls as tool nodes, on the frames the two built-in agents sent for the same
 * approved command (recorded: test/fixtures/transcripts/acp/<agent>/approval_request.ndjson).
 */
const threadId = ThreadId.parse('thr_tools');
const runId = RunId.parse('run_tools');

/** The tool-call updates an agent sent in a recorded scenario, in order. */
function recordedToolUpdates(agent: string, scenario: string): ToolUpdate[] {
  const url = new URL(`../fixtures/transcripts/acp/${agent}/${scenario}.ndjson`, import.meta.url);
  return readTranscript(url.pathname).entries.flatMap((e) => {
    if (e.kind !== 'emit_inbound') return [];
    const update = (e.frame as { params?: { update?: ToolUpdate } }).params?.update;
    return update?.sessionUpdate === 'tool_call' || update?.sessionUpdate === 'tool_call_update' ? [update] : [];
  });
}

function play(updates: ToolUpdate[]) {
  let n = 0;
  const calls = new AcpToolCalls(() => NodeId.parse(`node_${++n}`));
  const start = (nodeId: NodeId, title: string | null): ProviderEvent => ({
    type: 'node.started',
    threadId,
    runId,
    nodeId,
    parentNodeId: NodeId.parse('node_root'),
    attemptId: null,
    kind: 'tool_call',
    title,
  });
  const events = updates.flatMap((u) => calls.update(u, { threadId, runId, start }));
  const detail = Object.assign({}, ...events.flatMap((e) => (e.type === 'node.detail' ? [e.detail] : [])));
  return { events, detail, calls };
}

describe('ACP tool calls as tool nodes', () => {
  it('claude-agent-acp: a command opened as "Terminal" is renamed by the command it runs, its output the raw output', () => {
    const { events, detail } = play(recordedToolUpdates('claude-agent-acp', 'approval_request'));
    expect(events[0]).toMatchObject({ type: 'node.started', kind: 'tool_call', title: 'Terminal' });
    expect(events.flatMap((e) => (e.type === 'node.detail' && e.title ? [e.title] : []))).toEqual([
      'echo approved > proof.txt',
    ]);
    expect(detail).toMatchObject({
      tool: 'command',
      command: 'echo approved > proof.txt',
      output: '(Bash completed with no output)',
    });
    expect(
      events.filter((e) => e.type === 'node.detail').every((e) => e.type === 'node.detail' && e.text === null),
    ).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'node.completed', status: 'completed' });
  });

  it("codex-acp: the command is the one Codex parsed from its argv, its output Codex's aggregated output", () => {
    const { events, detail } = play(recordedToolUpdates('codex-acp', 'approval_request'));
    expect(events[0]).toMatchObject({ type: 'node.started', title: 'echo approved > proof.txt' });
    expect(events.some((e) => e.type === 'node.detail' && e.title !== undefined)).toBe(false);
    expect(detail).toMatchObject({ tool: 'command', command: 'echo approved > proof.txt', output: '' });
    expect(detail.rawOutput).toMatchObject({ exit_code: 0 });
    expect(events.at(-1)).toMatchObject({ type: 'node.completed', status: 'completed' });
  });

  it('claude-agent-acp: a web search (opened as "undefined") is a web_search node titled by its query, its results the output', () => {
    const { events, detail } = play(recordedToolUpdates('claude-agent-acp', 'web_search'));
    expect(events[0]).toMatchObject({ type: 'node.started', title: '"undefined"' });
    expect(events.flatMap((e) => (e.type === 'node.detail' && e.title ? [e.title] : []))).toEqual([
      'baton orchestration runtime',
    ]);
    expect(detail).toMatchObject({
      tool: 'web_search',
      query: 'baton orchestration runtime',
      action: { type: 'search', query: 'baton orchestration runtime' },
    });
    expect(detail.output).toMatch(/^Web search results for query: "baton orchestration runtime"/);
    // Its later frames, with no input, leave it a web search.
    expect(events.flatMap((e) => (e.type === 'node.detail' && e.detail['tool'] ? [e.detail['tool']] : [])).at(-1)).toBe(
      'web_search',
    );
  });

  it("codex-acp's web search passes Codex's own action on", () => {
    expect(webSearchOf('fetch', { query: 'q', action: { type: 'search', query: 'q', queries: ['q'] } })).toEqual({
      query: 'q',
      action: { type: 'search', query: 'q', queries: ['q'] },
    });
    expect(webSearchOf('fetch', { url: 'https://example.com' })).toBeNull();
    expect(webSearchOf('read', { query: 'q' })).toBeNull();
  });

  it("another kind keeps its ACP kind as its tool; its output is its content's text when there is no raw output", () => {
    const { detail, calls, events } = play([
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'read_1',
        title: 'Read notes.md',
        kind: 'read',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: '# Notes' } }],
      },
      { sessionUpdate: 'tool_call', toolCallId: 'open_1', title: 'Fetch', kind: 'fetch', status: 'in_progress' },
    ]);
    expect(detail).toMatchObject({ tool: 'fetch', kind: 'fetch' });
    expect(events[1]).toMatchObject({ type: 'node.detail', detail: { tool: 'read', output: '# Notes' } });
    // The prompt's end ends what is still open, and only that.
    const open = calls.nodeOf('open_1');
    expect(calls.end({ threadId, runId }, 'interrupted')).toEqual([
      { type: 'node.completed', threadId, runId, nodeId: open, status: 'interrupted' },
    ]);
  });

  it('reads a command line from either form, and an output from either form', () => {
    expect(commandOf({ command: 'ls -la' })).toBe('ls -la');
    expect(commandOf({ command: ['/bin/bash', '-lc', 'make test'] })).toBe('make test');
    // The script as the model wrote it, over what Codex parsed out of it (a pipe is no `&&`).
    expect(
      commandOf({ command: ['/bin/bash', '-lc', 'a | b'], parsed_cmd: [{ type: 'unknown', cmd: 'a' }, { cmd: 'b' }] }),
    ).toBe('a | b');
    expect(commandOf({ command: ['runner', 'x'], parsed_cmd: [{ cmd: 'a' }, { cmd: 'b' }] })).toBe('a && b');
    expect(commandOf({ command: `/bin/bash -lc 'make test'` })).toBe('make test');
    expect(commandOf({})).toBeNull();
    expect(commandOf('ls')).toBeNull();
    expect(outputOf({ rawOutput: 'plain' })).toBe('plain');
    expect(outputOf({ rawOutput: { aggregated_output: 'out\n', formatted_output: 'fmt' } })).toBe('out\n');
    expect(outputOf({ rawOutput: { exit_code: 1 } })).toBeNull();
    expect(outputOf({ content: [{ type: 'diff', path: 'a' }] })).toBeNull();
  });
});
