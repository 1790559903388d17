import { describe, expect, it } from 'vitest';
import { describeEvent } from '../../src/cli/describe-event.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { EventId, NodeId, RunId, ThreadId } from '../../src/domain/ids.js';

/** The CLI's line for a tool call the agent named after it began, and for every other detail (none). */
const threadId = ThreadId.parse('thr_cli');
const runId = RunId.parse('run_cli');
const nodeId = NodeId.parse('node_cli');
const detail = (extra: { title?: string }): DomainEvent => ({
  sequence: 1,
  eventId: EventId.parse('evt_cli'),
  commandId: null,
  causationId: null,
  threadId,
  type: 'node.detail',
  at: 1,
  payload: { threadId, runId, nodeId, text: null, detail: { command: 'ls' }, ...extra },
});

describe('describeEvent', () => {
  it("says a tool call's new name when the agent renames it, and nothing for any other detail", () => {
    expect(describeEvent(detail({ title: 'ls -la' }))).toBe('  [tool is] ls -la\n');
    expect(describeEvent(detail({}))).toBeNull();
  });
});
