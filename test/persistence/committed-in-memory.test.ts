import { describe, expect, it } from 'vitest';
import type { EventId, RunId } from '../../src/domain/ids.js';
import type { RunView } from '../../src/domain/projections.js';
import { validateUnit as validate, type CommitUnit } from '../../src/persistence/commit-unit.js';
import { runView, typicalUnit } from '../support/units.js';
import type { Store } from '../../src/persistence/store.js';
import { useTempStore } from '../support/store.js';

// Rows of the tables no delta appends to are answered from memory once read, and the log's
// last sequence once known (issue 12). What they answer must stay what is committed:
// nothing a rolled-back transaction wrote, everything a committed one did, in order.

const openStore = useTempStore();
const RUN = 'run_thr_a_1' as RunId;

/** A unit that rewrites run 1's row with `status` (and its own event). */
function statusUnit(n: number, status: RunView['status']): CommitUnit {
  return {
    events: [
      {
        eventId: `evt_status_${n}` as EventId,
        type: 'run.status-changed',
        threadId: runView('thr_a', 1).threadId,
        payload: { threadId: runView('thr_a', 1).threadId, runId: RUN, from: 'running', to: status, reason: null },
        commandId: null,
      },
    ],
    projections: [
      { projection: 'runs', op: 'upsert', id: RUN, threadId: 'thr_a', ord: 1, row: { ...runView('thr_a', 1), status } },
    ],
  };
}

/** A unit that rewrites run 1's row as failed and fails its transaction (its event id is taken). */
function refusedUnit(): CommitUnit {
  const unit = statusUnit(99, 'failed');
  unit.events![0]!.eventId = 'evt_thr_a_1' as EventId;
  return unit;
}

/** Commits run 1 and reads its row, so the store keeps it. */
function keptRun(store: Store): void {
  store.commit(typicalUnit('thr_a', 1));
  expect(store.projections.get('runs', RUN)?.status).toBe('running');
}

describe('committed projection rows', () => {
  it('answers what the last commit wrote, and a reread from disk agrees', () => {
    const { store, reopen } = openStore();
    store.commit(typicalUnit('thr_a', 1));
    expect(store.projections.get('runs', RUN)?.status).toBe('running');
    store.commit(statusUnit(2, 'completed'));
    expect(store.projections.get('runs', RUN)?.status).toBe('completed');
    expect(reopen().projections.get('runs', RUN)?.status).toBe('completed');
  });

  it('keeps nothing a rolled-back transaction wrote, nor lets a later commit bring it back', () => {
    const { store } = openStore();
    keptRun(store);
    // The row is staged, then the reused event id fails the transaction.
    expect(() => store.commit(refusedUnit())).toThrow(/UNIQUE/);
    expect(store.projections.get('runs', RUN)?.status).toBe('running');
    expect(store.lastSequence()).toBe(1);
    // A commit with no events of its own leaves the log's end where it was.
    const { events: _none, ...eventless } = typicalUnit('thr_c', 1);
    expect(store.commit(eventless)).toMatchObject({ firstSequence: null, lastSequence: 1 });
    expect(store.lastSequence()).toBe(1);
    expect(store.commit(typicalUnit('thr_b', 1))).toMatchObject({ firstSequence: 2, lastSequence: 2 });
    expect(store.projections.get('runs', RUN)?.status).toBe('running');
    expect(store.lastSequence()).toBe(2);
  });

  it('applies a group in order: a row written then deleted is gone', () => {
    const { store } = openStore();
    keptRun(store);
    store.commitMany([statusUnit(2, 'completed'), { projections: [{ projection: 'runs', op: 'delete', id: RUN }] }]);
    expect(store.projections.get('runs', RUN)).toBeNull();
  });

  it('a group retried unit by unit keeps the rows of the units that committed', () => {
    const { store } = openStore();
    keptRun(store);
    const results = store.commitIsolated([
      validate(statusUnit(2, 'completed')),
      validate(typicalUnit('thr_b', 1)),
      validate(refusedUnit()),
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true, false]);
    expect(store.projections.get('runs', RUN)?.status).toBe('completed');
    expect(store.projections.get('runs', 'run_thr_b_1')?.status).toBe('running');
  });

  it('hands out frozen rows: a reader cannot change what the next one reads', () => {
    const { store } = openStore();
    store.commit(typicalUnit('thr_a', 1));
    const row = store.projections.get('runs', RUN)!;
    expect(() => {
      (row as { status: string }).status = 'completed';
    }).toThrow(TypeError);
    expect(() => (row.attempts as unknown[]).push('x')).toThrow(TypeError);
    expect(store.projections.get('runs', RUN)?.status).toBe('running');
  });
});
