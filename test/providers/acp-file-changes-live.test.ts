import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentToolName } from '../../src/providers/model/offline-assistant.js';
import { useLiveAcp } from '../support/live-acp.js';

/**
 * claude-agent-acp's file edits as file changes, live: a Write then an Edit of the same file
 * are tool nodes whose `files` say what changed as Codex's and Claude's do (an add's content,
 * an update's unified diff), made from the `diff` contents of the agent's tool calls.
 */
const acp = useLiveAcp();

/** The agent's own file tool where it offers one (its ACP-backed `mcp__acp__` tools), else Claude Code's. */
const tool = agentToolName;

describe('claude-agent-acp file changes, live', () => {
  it(
    'a Write is an added file with its content; an Edit an updated one with its unified diff',
    { timeout: 60_000 },
    async () => {
      let notes = '';
      const { h, cwd } = await acp.setup({
        claude: (request, index) =>
          index === 0
            ? { kind: 'tool_use', name: tool(request, 'Write'), input: { file_path: notes, content: 'one\ntwo\n' } }
            : index === 1
              ? {
                  kind: 'tool_use',
                  name: tool(request, 'Edit'),
                  input: { file_path: notes, old_string: 'two', new_string: 'three' },
                }
              : { kind: 'text', text: 'Edited.' },
      });
      notes = join(cwd, 'notes.md');
      const threadId = await h.thread({
        threadId: 'thr_acp_files',
        cwd,
        provider: 'acp',
        acpAgent: 'claude-agent-acp',
        runtimeMode: 'workspace_write',
      });
      const runId = await h.send(threadId, 'write then edit notes.md');
      await h.until(() => h.store.projections.get('runs', runId)?.status === 'completed');
      expect(readFileSync(notes, 'utf8')).toBe('one\nthree\n');

      const tools = h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'tool_call');
      expect(tools.map((n) => [n.status, n.detail?.tool])).toEqual([
        ['completed', 'file_change'],
        ['completed', 'file_change'],
      ]);
      expect(tools[0]!.detail?.files).toEqual([{ path: notes, kind: { type: 'add' }, diff: 'one\ntwo\n' }]);
      expect(tools[1]!.detail?.files).toEqual([
        { path: notes, kind: { type: 'update' }, diff: '@@ -1,2 +1,2 @@\n one\n-two\n+three\n' },
      ]);
    },
  );
});
