import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { join } from 'node:path';
import { Store } from '../../src/persistence/store.js';
import type { CommitUnit } from '../../src/persistence/commit-unit.js';
import type { CommandId, EventId, ThreadId } from '../../src/domain/ids.js';
import { tempDir } from '../support/temp.js';

/** The simple model: an array of events and a map of receipts. */
interface ModelEvent {
  sequence: number;
  eventId: string;
  threadId: string;
  commandId: string | null;
}

type Op =
  | { kind: 'commit'; thread: string; events: number; command: string | null }
  | { kind: 'read'; after: number; limit: number }
  | { kind: 'readThread'; thread: string; after: number }
  | { kind: 'reopen' };

const thread = fc.constantFrom('thr_a', 'thr_b', 'thr_c');
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('commit' as const),
      thread,
      events: fc.integer({ min: 0, max: 3 }),
      command: fc.option(fc.constantFrom('c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'), { nil: null }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      after: fc.integer({ min: 0, max: 40 }),
      limit: fc.integer({ min: 1, max: 50 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('readThread' as const), thread, after: fc.integer({ min: 0, max: 40 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
);

function unitFor(o: Extract<Op, { kind: 'commit' }>, n: number): CommitUnit {
  const events = Array.from({ length: o.events }, (_, k) => ({
    eventId: `evt_${n}_${k}` as EventId,
    type: 'runtime.warning' as const,
    threadId: o.thread as ThreadId,
    payload: { threadId: o.thread as ThreadId, runId: null, message: `unit ${n} event ${k}` },
    commandId: o.command as CommandId | null,
  }));
  return {
    events,
    ...(o.command
      ? {
          receipt: {
            ok: true as const,
            commandId: o.command as CommandId,
            commandType: 'test',
            threadId: o.thread as ThreadId,
            result: { n },
          },
        }
      : {}),
  };
}

describe('event log against an in-memory model', () => {
  it('appends, deduplicates and reads exactly like the model, across reopens', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const { dir, cleanup } = tempDir();
        const path = join(dir, 'p.sqlite');
        let store = Store.open(path);
        const log: ModelEvent[] = [];
        const receipts = new Map<string, number>();
        try {
          ops.forEach((o, n) => {
            switch (o.kind) {
              case 'commit': {
                const result = store.commit(unitFor(o, n));
                if (o.command && receipts.has(o.command)) {
                  expect(result).toMatchObject({ duplicate: true, receipt: { sequence: receipts.get(o.command) } });
                  break;
                }
                for (let k = 0; k < o.events; k++) {
                  log.push({
                    sequence: log.length + 1,
                    eventId: `evt_${n}_${k}`,
                    threadId: o.thread,
                    commandId: o.command,
                  });
                }
                if (o.command) receipts.set(o.command, log.length);
                expect(result).toMatchObject({ duplicate: false, lastSequence: log.length });
                break;
              }
              case 'read': {
                const got = store.events
                  .readAfter(o.after, o.limit)
                  .map(({ sequence, eventId, threadId, commandId }) => ({ sequence, eventId, threadId, commandId }));
                expect(got).toEqual(log.filter((e) => e.sequence > o.after).slice(0, o.limit));
                break;
              }
              case 'readThread': {
                const got = store.events.readThreadAfter(o.thread, o.after).map((e) => e.sequence);
                expect(got).toEqual(
                  log.filter((e) => e.threadId === o.thread && e.sequence > o.after).map((e) => e.sequence),
                );
                break;
              }
              case 'reopen':
                store.close();
                store = Store.open(path);
                break;
            }
          });
          expect(store.lastSequence()).toBe(log.length);
        } finally {
          store.close();
          cleanup();
        }
      }),
      { numRuns: 60 },
    );
  });
});
