import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ErrorCode } from '../../src/domain/errors.js';
import { commandTypes } from '../../src/domain/commands.js';
import { useRuntime } from '../support/runtime.js';

const open = useRuntime();

/** Anything a client or a broken adapter might send: junk, near-misses, wrong types, unknown ids. */
const junk = fc.oneof(
  fc.anything(),
  fc.record(
    {
      commandId: fc.string(),
      type: fc.constantFrom(...commandTypes, 'thread.nope', ''),
      threadId: fc.string(),
      runId: fc.string(),
      text: fc.anything(),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      commandId: fc.constantFrom('c_x', 'c_y'),
      type: fc.constantFrom(...commandTypes),
      threadId: fc.constantFrom('thr_a1', 'thr_missing'),
      runId: fc.constantFrom('run_a1', 'run_missing'),
      requestId: fc.constantFrom('req_missing'),
      text: fc.string(),
      runOrdinal: fc.integer({ min: -3, max: 5 }),
    },
    { requiredKeys: ['type'] },
  ),
);
const badEvent = fc.oneof(
  fc.anything(),
  fc.record(
    {
      type: fc.constantFrom('turn.completed', 'message.delta', 'request.opened', 'runtime.lost', 'nope'),
      threadId: fc.constantFrom('thr_a1', 'thr_missing'),
      runId: fc.string(),
      status: fc.string(),
    },
    { requiredKeys: ['type'] },
  ),
);

describe('bad input never throws, never corrupts', () => {
  it('every refusal is a typed error and leaves the stored facts as they were', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            junk.map((c) => ({ c })),
            badEvent.map((e) => ({ e })),
          ),
          { maxLength: 25 },
        ),
        async (inputs) => {
          const h = open();
          const threadId = await h.thread();
          await h.command({ type: 'thread.message.send', threadId, text: 'hello' });
          for (const input of inputs) {
            const before = h.store.lastSequence();
            const outcome = 'c' in input ? await h.runtime.dispatch(input.c) : await h.runtime.ingest(input.e);
            if (!outcome.ok) {
              expect(ErrorCode.options).toContain(outcome.error.code);
              expect(outcome.error.code).not.toBe('internal');
              expect(h.store.lastSequence()).toBe(before);
            }
          }
          expect(h.store.db.pragma('integrity_check', { simple: true })).toBe('ok');
          const sequences = h.store.events.readAfter(0, 100_000).map((e) => e.sequence);
          expect(sequences).toEqual(sequences.map((_, i) => i + 1));
        },
      ),
      { numRuns: 80 },
    );
  }, 120_000);
});
