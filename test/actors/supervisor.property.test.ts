import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { DomainEvent } from '../../src/domain/events.js';
import { useRuntime, type Harness } from '../support/runtime.js';

type Op =
  | { kind: 'send'; mode: 'auto' | 'queue_after_active' }
  | { kind: 'rootStarted' }
  | { kind: 'rootCompleted'; status: 'completed' | 'interrupted' | 'failed' }
  | { kind: 'childCompleted'; status: 'completed' | 'failed' }
  | { kind: 'lateRootCompleted' }
  | { kind: 'interrupt'; holdQueue: boolean }
  | { kind: 'ack' }
  | { kind: 'requestOpened' }
  | { kind: 'respond' }
  | { kind: 'delta' }
  | { kind: 'drainEffects' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('send' as const),
    mode: fc.constantFrom('auto' as const, 'queue_after_active' as const),
  }),
  fc.constant({ kind: 'rootStarted' as const }),
  fc.record({
    kind: fc.constant('rootCompleted' as const),
    status: fc.constantFrom('completed' as const, 'interrupted' as const, 'failed' as const),
  }),
  fc.record({
    kind: fc.constant('childCompleted' as const),
    status: fc.constantFrom('completed' as const, 'failed' as const),
  }),
  fc.constant({ kind: 'lateRootCompleted' as const }),
  fc.record({ kind: fc.constant('interrupt' as const), holdQueue: fc.boolean() }),
  fc.constant({ kind: 'ack' as const }),
  fc.constant({ kind: 'requestOpened' as const }),
  fc.constant({ kind: 'respond' as const }),
  fc.constant({ kind: 'delta' as const }),
  fc.constant({ kind: 'drainEffects' as const }),
);

const open = useRuntime();

/** Plays one op the way a provider (or user) would, against whatever turn is current. */
async function play(
  h: Harness,
  threadId: string,
  o: Op,
  n: number,
  previous: { runId: string; attemptId: string; rootNodeId: string }[],
): Promise<void> {
  const current = (() => {
    try {
      return h.turn(threadId);
    } catch {
      return null;
    }
  })();
  const t = current ?? { runId: 'run_none', attemptId: 'att_none', rootNodeId: 'node_none' };
  switch (o.kind) {
    case 'send':
      await h.command({ type: 'thread.message.send', threadId, text: `m${n}`, dispatchMode: o.mode });
      return;
    case 'rootStarted':
      await h.runtime.ingest({
        type: 'turn.started',
        threadId,
        runId: t.runId,
        attemptId: t.attemptId,
        nodeId: t.rootNodeId,
        nativeTurnRef: `turn-${n}`,
      });
      return;
    case 'rootCompleted':
      await h.runtime.ingest({
        type: 'turn.completed',
        threadId,
        runId: t.runId,
        attemptId: t.attemptId,
        nodeId: t.rootNodeId,
        status: o.status,
        error: null,
      });
      if (current) previous.push(current);
      return;
    case 'childCompleted':
      await h.runtime.ingest({
        type: 'node.started',
        threadId,
        runId: t.runId,
        nodeId: `node_child_${n}`,
        parentNodeId: t.rootNodeId,
        attemptId: t.attemptId,
        kind: 'subagent',
        title: null,
      });
      await h.runtime.ingest({
        type: 'turn.completed',
        threadId,
        runId: t.runId,
        attemptId: t.attemptId,
        nodeId: `node_child_${n}`,
        status: o.status,
        error: null,
      });
      return;
    case 'lateRootCompleted': {
      const old = previous[0];
      if (old)
        await h.runtime.ingest({
          type: 'turn.completed',
          threadId,
          runId: old.runId,
          attemptId: old.attemptId,
          nodeId: old.rootNodeId,
          status: 'completed',
          error: null,
        });
      return;
    }
    case 'interrupt':
      await h.command({ type: 'run.interrupt', runId: t.runId, holdQueue: o.holdQueue });
      return;
    case 'ack':
      await h.runtime.ingest({ type: 'interrupt.acknowledged', threadId, runId: t.runId });
      return;
    case 'requestOpened':
      await h.runtime.ingest({
        type: 'request.opened',
        threadId,
        runId: t.runId,
        requestId: `req_${n}`,
        nodeId: `node_req_${n}`,
        parentNodeId: t.rootNodeId,
        kind: 'command',
        prompt: 'ok?',
        details: {},
        providerSessionId: 'psess_1',
      });
      return;
    case 'respond': {
      const pending = h.store.projections.list('requests', threadId).find((r) => r.status === 'pending');
      if (pending) await h.command({ type: 'runtime-request.respond', requestId: pending.id, decision: 'accept' });
      return;
    }
    case 'delta':
      await h.runtime.ingest({
        type: 'message.delta',
        threadId,
        runId: t.runId,
        nodeId: t.rootNodeId,
        messageId: `msg_p_${t.runId}`,
        delta: 'x',
      });
      return;
    case 'drainEffects':
      await h.worker.drain();
      return;
  }
}

/** The invariants, read from the durable event log alone. */
function checkLog(events: DomainEvent[]): void {
  const started = events.filter((e) => e.type === 'run.started').map((e) => (e.payload as { ordinal: number }).ordinal);
  expect(started, 'ordinals are dense').toEqual(started.map((_, i) => i + 1));
  const rootOf = new Map<string, string>();
  const nodeStatus = new Map<string, string>();
  const barrier = new Map<string, string[]>();
  const terminal = new Set<string>();
  const ackedOnly = new Set<string>();
  for (const e of events) {
    const p = e.payload as Record<string, any>;
    if (e.type === 'attempt.created') rootOf.set(p.attempt.runId, p.attempt.rootNodeId);
    if (e.type === 'node.status-changed') nodeStatus.set(p.nodeId, p.to);
    if (e.type === 'run.barrier-step') {
      // The barrier starts only once the root turn of the active attempt has ended.
      if (!barrier.has(p.runId))
        expect(['completed', 'interrupted', 'failed'], `root node of ${p.runId} ended first`).toContain(
          nodeStatus.get(rootOf.get(p.runId)!),
        );
      barrier.set(p.runId, [...(barrier.get(p.runId) ?? []), p.step]);
    }
    if (e.type === 'run.interrupt-acknowledged') ackedOnly.add(p.runId);
    if (e.type === 'run.terminal') {
      expect(terminal.has(p.runId), `run ${p.runId} ends once`).toBe(false);
      terminal.add(p.runId);
      if (p.status === 'cancelled') continue;
      // Never skip a barrier step, and never end before the root turn of the active attempt ended.
      expect(barrier.get(p.runId), `barrier of ${p.runId}`).toEqual([
        'flush_text',
        'close_messages',
        'finalize_plans',
        'close_children',
        'checkpoint',
      ]);
    }
    if (terminal.has(p.runId) && e.type === 'run.status-changed') {
      expect(p.to === 'rolled_back' || ['completed', 'interrupted', 'failed', 'cancelled'].includes(p.to)).toBe(true);
    }
  }
}

describe('ThreadSupervisor under random provider interleavings', () => {
  it('never completes a run from a child, never ends on an acknowledgement, never skips the barrier, keeps ordinals dense', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const h = open();
        const threadId = await h.thread();
        const previous: { runId: string; attemptId: string; rootNodeId: string }[] = [];
        await h.command({ type: 'thread.message.send', threadId, text: 'first' });
        for (const [n, o] of ops.entries()) {
          const before = h.store.lastSequence();
          await play(h, threadId, o, n, previous);
          // An acknowledgement, a child's turn or a late event never starts a run's end.
          if (o.kind === 'ack' || o.kind === 'childCompleted' || o.kind === 'lateRootCompleted') {
            const ending = h.store.events
              .readThreadAfter(threadId, before)
              .filter((e) => e.type === 'run.barrier-step' || e.type === 'run.terminal');
            expect(
              ending.map((e) => e.type),
              `${o.kind} began ending a run`,
            ).toEqual([]);
          }
        }
        await h.worker.drain();
        checkLog(h.store.events.readThreadAfter(threadId, 0));
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
