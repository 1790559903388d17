import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectionSchemas, type ProjectionName } from '../../src/domain/projections.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { Store } from '../../src/persistence/store.js';
import { ProjectionOverlay } from '../../src/projections/overlay.js';
import { project } from '../../src/projections/projector.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { tempDir } from '../support/temp.js';

const open = useRuntime();

/** What a delta stream can do to the rows it grows, and what can happen between its steps. */
type Op =
  | { kind: 'message'; target: number; text: string }
  | { kind: 'complete'; target: number; extra: string }
  | { kind: 'output'; target: number; text: string }
  | { kind: 'detail'; target: number; text: string | null }
  | { kind: 'plan'; text: string }
  | { kind: 'burst'; ops: { target: number; text: string }[] }
  | { kind: 'refused'; target: number; before: string; after: string }
  | { kind: 'passivate' }
  | { kind: 'restart' };

const text = fc.string({ maxLength: 12 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('message' as const), target: fc.nat(2), text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), target: fc.nat(2), extra: text }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('output' as const), target: fc.nat(1), text }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('detail' as const), target: fc.nat(1), text: fc.option(text) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('plan' as const), text }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('burst' as const),
      ops: fc.array(fc.record({ target: fc.nat(2), text }), { minLength: 2, maxLength: 8 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('refused' as const), target: fc.nat(2), before: text, after: text }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'passivate' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

const streamed: ProjectionName[] = ['messages', 'turn_items', 'plans'];

/** Rows as a reader gets them: parsed by their schema, in id order. */
function normalized(name: ProjectionName, rows: unknown[]): unknown[] {
  return rows
    .map((r) => projectionSchemas[name].parse(JSON.parse(JSON.stringify(r))))
    .sort((a, b) => ((a as { id: string }).id < (b as { id: string }).id ? -1 : 1));
}

/**
 * The reference: every event of the thread projected in one overlay over an empty store,
 * so each delta rewrites its row in memory, as every delta once rewrote its row on disk.
 */
function referenceRows(events: DomainEvent[], threadId: string): Record<string, unknown[]> {
  const { dir, cleanup } = tempDir('baton-ref-');
  const store = Store.open(join(dir, 'ref.sqlite'));
  try {
    const view = new ProjectionOverlay(store.projections);
    for (const e of events) project(e, view);
    return Object.fromEntries(streamed.map((name) => [name, normalized(name, view.list(name, threadId))]));
  } finally {
    store.close();
    cleanup();
  }
}

describe('streamed text appended as chunks', () => {
  it('gives the same rows as rewriting each row per delta, across bursts, passivation and restarts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        let h: Harness = open();
        const threadId = await h.thread();
        await h.send(threadId, 'go');
        const t = h.turn(threadId);
        const run = { threadId, runId: t.runId };
        await h.feed({
          type: 'turn.started',
          ...run,
          attemptId: t.attemptId,
          nodeId: t.rootNodeId,
          nativeTurnRef: null,
        });
        const tools = ['node_tool_0', 'node_reason_1'];
        await h.feed({
          type: 'node.started',
          ...run,
          nodeId: tools[0],
          parentNodeId: t.rootNodeId,
          attemptId: t.attemptId,
          kind: 'tool_call',
          title: 'ls',
        });
        await h.feed({
          type: 'node.started',
          ...run,
          nodeId: tools[1],
          parentNodeId: t.rootNodeId,
          attemptId: t.attemptId,
          kind: 'reasoning',
          title: null,
        });
        await h.feed({
          type: 'plan.updated',
          ...run,
          nodeId: t.rootNodeId,
          planId: 'plan_1',
          kind: 'proposed_plan',
          text: null,
          steps: [],
        });
        const request = {
          type: 'request.opened',
          ...run,
          requestId: 'req_1',
          nodeId: 'node_req_1',
          parentNodeId: t.rootNodeId,
          kind: 'command',
          prompt: 'ok?',
          details: {},
          providerSessionId: 'psess_1',
        };
        await h.feed(request);
        const expected = { messages: ['', '', ''], plan: '' };
        let details = 0;
        const message = (target: number, delta: string) => ({
          type: 'message.delta',
          ...run,
          nodeId: t.rootNodeId,
          messageId: `msg_${target}`,
          delta,
        });

        for (const o of ops) {
          if (o.kind === 'message') {
            await h.feed(message(o.target, o.text));
            expected.messages[o.target] += o.text;
          } else if (o.kind === 'complete') {
            const full = expected.messages[o.target] + o.extra;
            await h.feed({
              type: 'message.completed',
              ...run,
              nodeId: t.rootNodeId,
              messageId: `msg_${o.target}`,
              text: full,
            });
            expected.messages[o.target] = full;
          } else if (o.kind === 'output') {
            await h.feed({ type: 'node.delta', ...run, nodeId: tools[o.target], delta: o.text });
          } else if (o.kind === 'detail') {
            // A new key each time: a full write from a stale row would lose the earlier ones.
            details += 1;
            await h.feed({
              type: 'node.detail',
              ...run,
              nodeId: tools[o.target],
              text: o.text,
              detail: { [`k${details}`]: details },
            });
          } else if (o.kind === 'plan') {
            await h.feed({ type: 'plan.delta', ...run, planId: 'plan_1', delta: o.text });
            expected.plan += o.text;
          } else if (o.kind === 'burst') {
            const outcomes = await Promise.all(o.ops.map((d) => h.runtime.ingest(message(d.target, d.text))));
            expect(outcomes.every((x) => x.ok)).toBe(true);
            for (const d of o.ops) expected.messages[d.target] += d.text;
          } else if (o.kind === 'refused') {
            // The same request opened twice is a conflict: the shared step fails (its rows
            // and cache are dropped) and its events run again one by one.
            const [a, bad, b] = await Promise.all([
              h.runtime.ingest(message(o.target, o.before)),
              h.runtime.ingest({ ...request, nodeId: 'node_req_2' }),
              h.runtime.ingest(message(o.target, o.after)),
            ]);
            expect([a.ok, bad.ok, b.ok]).toEqual([true, false, true]);
            expected.messages[o.target] += o.before + o.after;
          } else if (o.kind === 'passivate') {
            h.runtime.passivateIdle();
          } else {
            h = h.restart();
          }
        }

        for (const [i, want] of expected.messages.entries()) {
          const row = h.store.projections.get('messages', `msg_${i}`);
          if (row) expect(row.text).toBe(want);
        }
        expect(h.store.projections.get('plans', 'plan_1')?.text ?? '').toBe(expected.plan);
        const reference = referenceRows(h.store.events.readThreadAfter(threadId, 0), threadId);
        const fromDisk = () =>
          Object.fromEntries(
            streamed.map((name) => [name, normalized(name, h.store.projections.list(name, threadId))]),
          );
        expect(fromDisk()).toEqual(reference);
        // After a restart the rows read back are the same.
        h = h.restart();
        expect(fromDisk()).toEqual(reference);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
