import { describe, expect, it } from 'vitest';
import { describeEvent, eventDescriber, outputLines } from '../../src/cli/describe-event.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { EventId, NodeId, RunId, ThreadId } from '../../src/domain/ids.js';

/** The CLI's line for a tool call the agent named after it began, and for every other detail (none). */
const threadId = ThreadId.parse('thr_cli');
const runId = RunId.parse('run_cli');
const nodeId = NodeId.parse('node_cli');
const detail = (extra: { title?: string }, fields: Record<string, unknown> = { command: 'ls' }): DomainEvent => ({
  sequence: 1,
  eventId: EventId.parse('evt_cli'),
  commandId: null,
  causationId: null,
  threadId,
  type: 'node.detail',
  at: 1,
  payload: { threadId, runId, nodeId, text: null, detail: fields, ...extra },
});

describe('describeEvent', () => {
  it("says a tool call's new name when the agent renames it, and nothing for any other detail", () => {
    expect(describeEvent(detail({ title: 'ls -la' }))).toBe('  [tool is] ls -la\n');
    expect(describeEvent(detail({}))).toBeNull();
  });

  it("names a file change's files once they are known, whichever agent made it", () => {
    const files = [
      { path: '/ws/notes.md', kind: { type: 'add' }, diff: 'hi\n' },
      { path: '/ws/a.ts', kind: { type: 'update' }, diff: '@@ -1 +1 @@' },
    ];
    expect(describeEvent(detail({}, { tool: 'file_change', files }))).toBe(
      '  [files] add /ws/notes.md, update /ws/a.ts\n',
    );
    expect(describeEvent(detail({ title: 'Edit /ws/a.ts' }, { files: files.slice(1) }))).toBe(
      '  [tool is] Edit /ws/a.ts\n  [files] update /ws/a.ts\n',
    );
    expect(describeEvent(detail({}, { tool: 'file_change', files: [] }))).toBeNull();
  });

  it("says a node's files once in a stream, and again only if they change", () => {
    const describe = eventDescriber();
    const add = [{ path: '/ws/notes.md', kind: { type: 'add' }, diff: 'hi\n' }];
    const update = [{ path: '/ws/notes.md', kind: { type: 'update' }, diff: '@@' }];
    expect(describe(detail({}, { tool: 'file_change', files: add }))).toBe('  [files] add /ws/notes.md\n');
    // Codex repeats them as the change completes.
    expect(describe(detail({}, { files: add }))).toBeNull();
    expect(describe(detail({}, { files: update }))).toBe('  [files] update /ws/notes.md\n');
  });

  it("says a tool's output, its last lines, once", () => {
    const describe = eventDescriber();
    expect(describe(detail({}, { output: 'one\ntwo\n' }))).toBe('  | one\n  | two\n');
    expect(describe(detail({}, { exitCode: 0, output: 'one\ntwo\n' }))).toBeNull();
    const long = Array.from({ length: 8 }, (_, i) => `line ${i + 1}`).join('\n');
    expect(outputLines(long)).toBe(
      '  | (3 line(s) before)\n  | line 4\n  | line 5\n  | line 6\n  | line 7\n  | line 8\n',
    );
    expect(outputLines('')).toBe('');
    expect(outputLines({ not: 'text' })).toBe('');
  });
});
