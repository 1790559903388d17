import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useLiveClaude } from '../support/live-claude.js';

/**
 * The Claude agent's file tools as file changes, live against the scripted Messages-API
 * model: a Write and then an Edit of the same file are tool nodes whose `files` say what
 * changed as Codex's file changes do (an add's content, an update's unified diff).
 */
const claude = useLiveClaude();

describe("the Claude agent's file changes (live)", () => {
  it('a Write is an added file with its content; an Edit an updated one with its unified diff', async () => {
    const { h, cwd, model } = await claude.setup();
    const notes = join(cwd, 'notes.md');
    model.enqueue(
      { kind: 'tool_use', name: 'Write', input: { file_path: notes, content: 'one\ntwo\n' } },
      { kind: 'tool_use', name: 'Edit', input: { file_path: notes, old_string: 'two', new_string: 'three' } },
      { kind: 'text', text: 'Edited.' },
    );
    const threadId = await h.thread({ threadId: 'thr_files', cwd, runtimeMode: 'workspace_write' });
    const runId = await h.send(threadId, 'write then edit notes.md');
    await h.until(() => h.store.projections.get('runs', runId)?.status === 'completed', 60_000);
    expect(readFileSync(notes, 'utf8')).toBe('one\nthree\n');

    const tools = h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'tool_call');
    expect(tools.map((n) => [n.title, n.status, n.detail?.tool, n.detail?.name])).toEqual([
      ['Write', 'completed', 'file_change', 'Write'],
      ['Edit', 'completed', 'file_change', 'Edit'],
    ]);
    expect(tools[0]!.detail?.files).toEqual([{ path: notes, kind: { type: 'add' }, diff: 'one\ntwo\n' }]);
    expect(tools[1]!.detail?.files).toEqual([
      { path: notes, kind: { type: 'update' }, diff: '@@ -1,2 +1,2 @@\n one\n-two\n+three\n' },
    ]);
  }, 120_000);
});
