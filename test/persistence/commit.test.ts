import { describe, expect, it } from 'vitest';
import { BatonError } from '../../src/domain/errors.js';
import type { CommitUnit } from '../../src/persistence/commit-unit.js';
import type { ProjectionChange, RunView } from '../../src/domain/projections.js';
import type { ThreadId, EventId } from '../../src/domain/ids.js';
import { runView, typicalUnit } from '../support/units.js';
import { tableCounts, useTempStore } from '../support/store.js';

const openStore = useTempStore();

function expectRefused(fn: () => unknown, code: string): BatonError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(BatonError);
    expect((error as BatonError).code).toBe(code);
    return error as BatonError;
  }
  throw new Error(`expected a ${code} refusal`);
}

describe('Store.commit', () => {
  it('writes events, snapshot, projection, effect and receipt together and returns the last sequence', () => {
    const { store, clock } = openStore();
    clock.set(1_000);
    const result = store.commit(typicalUnit('thr_a', 1, { receipt: true, effect: true }));
    expect(result).toEqual({ duplicate: false, lastSequence: 1, firstSequence: 1, at: 1_000 });

    const [event] = store.events.readAfter(0);
    expect(event).toMatchObject({
      sequence: 1,
      eventId: 'evt_thr_a_1',
      commandId: 'cmd_thr_a_1',
      threadId: 'thr_a',
      type: 'run.status-changed',
      at: 1_000,
    });
    expect(store.entities.get('run_thr_a_1')).toMatchObject({
      kind: 'run',
      machineId: 'run',
      machineVersion: 1,
      lastSequence: 1,
    });
    expect(store.projections.get('runs', 'run_thr_a_1')).toMatchObject({ ordinal: 1, status: 'running' });
    expect(store.outbox.get('eff_thr_a_1')).toMatchObject({
      status: 'pending',
      attempts: 0,
      causationEventId: 'evt_thr_a_1',
    });
    expect(store.receipts.get('cmd_thr_a_1')).toMatchObject({
      ok: true,
      sequence: 1,
      result: { runId: 'run_thr_a_1' },
    });
  });

  it('answers a duplicate commandId with the first receipt and appends nothing', () => {
    const { store } = openStore();
    store.commit(typicalUnit('thr_a', 1, { receipt: true, effect: true }));
    const first = store.receipts.get('cmd_thr_a_1');
    const before = tableCounts(store);

    // Same commandId, different content: the stored receipt wins and nothing is written.
    const again = typicalUnit('thr_a', 2, { receipt: true, effect: true });
    again.receipt = { ...again.receipt!, commandId: first!.commandId };
    const result = store.commit(again);

    expect(result).toEqual({ duplicate: true, lastSequence: 1, receipt: first });
    expect(tableCounts(store)).toEqual(before);
    expect(store.outbox.get('eff_thr_a_2')).toBeNull();
  });

  it('keeps the sequence global and gap-free across threads', () => {
    const { store } = openStore();
    for (let i = 1; i <= 5; i++) {
      store.commit(typicalUnit('thr_a', i));
      store.commit(typicalUnit('thr_b', i));
    }
    expect(store.events.readAfter(0).map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(store.events.readThreadAfter('thr_b', 4).map((e) => e.sequence)).toEqual([6, 8, 10]);
    expect(store.events.readAfter(7).map((e) => e.sequence)).toEqual([8, 9, 10]);
    expect(store.lastSequence()).toBe(10);
  });

  it('stamps a unit without events with the current last sequence', () => {
    const { store } = openStore();
    store.commit(typicalUnit('thr_a', 1));
    const { events: _events, ...snapshotOnly } = typicalUnit('thr_a', 2);
    expect(store.commit(snapshotOnly)).toMatchObject({ duplicate: false, lastSequence: 1, firstSequence: null });
    expect(store.entities.get('run_thr_a_2')?.lastSequence).toBe(1);
  });

  it('group-commits many units in one transaction with consecutive sequences', () => {
    const { store } = openStore();
    const units = Array.from({ length: 50 }, (_, i) => typicalUnit('thr_g', i + 1, { receipt: true }));
    units.push(typicalUnit('thr_g', 1, { receipt: true })); // a duplicate inside the batch
    const results = store.commitMany(units);
    expect(results.slice(0, 50).map((r) => r.lastSequence)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(results[50]).toMatchObject({ duplicate: true });
    expect(store.events.readAfter(0)).toHaveLength(50);
  });
});

describe('Store.commit refuses bad input and writes nothing', () => {
  const cases: [string, (u: CommitUnit) => CommitUnit, string][] = [
    [
      'an unknown entity kind',
      (u) => ({ ...u, snapshots: [{ ...u.snapshots![0]!, kind: 'spaceship' as never }] }),
      'unknown_entity_kind',
    ],
    [
      'an unknown event type',
      (u) => ({ ...u, events: [{ ...u.events![0]!, type: 'run.teleported' as never }] }),
      'unknown_event_type',
    ],
    [
      'an event payload that fails its schema',
      (u) => ({ ...u, events: [{ ...u.events![0]!, payload: { runId: 42 } as never }] }),
      'invalid_payload',
    ],
    [
      'a run status outside the status set',
      (u) => ({
        ...u,
        events: [
          {
            ...u.events![0]!,
            payload: {
              threadId: 'thr_x' as ThreadId,
              runId: 'r',
              from: 'running',
              to: 'exploded',
              reason: null,
            } as never,
          },
        ],
      }),
      'invalid_payload',
    ],
    [
      'an unknown projection',
      (u) => ({
        ...u,
        projections: [{ projection: 'nope', op: 'upsert', id: 'x', threadId: null, ord: 0, row: {} } as never],
      }),
      'unknown_projection',
    ],
    [
      'a projection row that fails its schema',
      (u) => ({
        ...u,
        projections: [{ projection: 'runs', op: 'upsert', id: 'x', threadId: null, ord: 0, row: { id: 'x' } } as never],
      }),
      'invalid_payload',
    ],
    [
      'a snapshot that is not JSON',
      (u) => ({ ...u, snapshots: [{ ...u.snapshots![0]!, snapshot: undefined }] }),
      'invalid_payload',
    ],
  ];

  it.each(cases)('%s', (_name, breakUnit, code) => {
    const { store } = openStore();
    store.commit(typicalUnit('thr_a', 1, { receipt: true }));
    const before = tableCounts(store);
    const bad = breakUnit(typicalUnit('thr_a', 2, { receipt: true, effect: true }));
    expectRefused(() => store.commit(bad), code);
    expect(tableCounts(store)).toEqual(before);
    expect(store.receipts.get('cmd_thr_a_2')).toBeNull();
  });

  it('a failure late in the transaction (binding conflict) rolls back the whole unit', () => {
    const { store } = openStore();
    const binding = {
      provider: 'codex',
      scope: 'session:s1/thread:t1',
      nativeRef: 'turn-9',
      appId: 'pturn_1',
      entityKind: 'provider_turn',
      correlation: 'native_exact',
    } as const;
    store.commit({ bindings: [binding] });
    const before = tableCounts(store);
    const unit = {
      ...typicalUnit('thr_a', 1, { receipt: true, effect: true }),
      bindings: [{ ...binding, appId: 'pturn_2' }],
    };
    expectRefused(() => store.commit(unit), 'binding_conflict');
    expect(tableCounts(store)).toEqual(before);
    expect(store.lastSequence()).toBe(0);
    // Re-binding the same app id is idempotent.
    expect(() => store.commit({ bindings: [binding] })).not.toThrow();
    expect(store.bindings.resolve('codex', 'session:s1/thread:t1', 'turn-9')?.appId).toBe('pturn_1');
    expect(store.bindings.resolve('codex', 'session:s2/thread:t1', 'turn-9')).toBeNull();
  });

  it('an effect whose causation event does not exist is a typed conflict', () => {
    const { store } = openStore();
    const unit = typicalUnit('thr_a', 1, { effect: true });
    unit.effects = [{ ...unit.effects![0]!, causationEventId: 'evt_missing' as EventId }];
    expect(expectRefused(() => store.commit(unit), 'conflict').message).toMatch(/FOREIGN KEY/);
    expect(tableCounts(store).events).toBe(0);
  });

  it('a reused eventId is a typed conflict', () => {
    const { store } = openStore();
    store.commit(typicalUnit('thr_a', 1));
    const before = tableCounts(store);
    const unit = typicalUnit('thr_a', 2);
    unit.events = [{ ...unit.events![0]!, eventId: 'evt_thr_a_1' as EventId }];
    expectRefused(() => store.commit(unit), 'conflict');
    expect(tableCounts(store)).toEqual(before);
  });
});

describe('group commit writes staged rows as the units ordered them', () => {
  it('an entity id reused as another kind inside a group is a typed conflict, and the group writes nothing', () => {
    const { store } = openStore();
    const first = typicalUnit('thr_a', 1);
    const second = typicalUnit('thr_a', 2);
    const clash: CommitUnit = {
      snapshots: [{ ...second.snapshots![0]!, entityId: first.snapshots![0]!.entityId, kind: 'run_attempt' }],
    };
    const error = expectRefused(() => store.commitMany([first, second, clash]), 'conflict');
    expect(error.message).toContain(first.snapshots![0]!.entityId);
    expect(tableCounts(store)).toMatchObject({ events: 0, entities: 0 });
  });

  it('an upsert then a delete of one projection row in one group leaves it deleted; a delete then an upsert leaves it written', () => {
    const { store } = openStore();
    const unit = typicalUnit('thr_a', 1);
    const change = unit.projections![0]!;
    const remove: CommitUnit = { projections: [{ projection: 'runs', op: 'delete', id: change.id }] };
    store.commitMany([unit, remove]);
    expect(store.projections.get('runs', change.id)).toBeNull();
    store.commitMany([remove, { projections: [change] }]);
    expect(store.projections.get('runs', change.id)).toMatchObject({ id: change.id });
  });

  /** The upsert of run `i`'s row on `threadId` at `ord`, with `status`. */
  const runRow = (
    i: number,
    threadId: string,
    ord: number,
    status: RunView['status'] = 'running',
  ): ProjectionChange => ({
    projection: 'runs',
    op: 'upsert',
    id: `run_${i}`,
    threadId,
    ord,
    row: { ...runView(threadId, i, `run_${i}`), status },
  });

  it('an update that moves a projection row to another thread or order moves it, alone or among rows updated in place', () => {
    const { store } = openStore();
    store.commitMany([1, 2, 3].map((i) => ({ projections: [runRow(i, 'thr_a', i)] })));
    // In one group: one row updated in place, one moved to another thread, one given a new order twice (the last wins).
    store.commitMany([
      { projections: [runRow(1, 'thr_a', 1, 'completed'), runRow(2, 'thr_b', 9)] },
      { projections: [runRow(3, 'thr_a', 0), runRow(3, 'thr_a', 5)] },
    ]);
    expect(store.projections.list('runs', 'thr_a').map((r) => [r.id, r.status])).toEqual([
      ['run_1', 'completed'],
      ['run_3', 'running'],
    ]);
    expect(store.projections.list('runs', 'thr_b').map((r) => r.id)).toEqual(['run_2']);
    expect(store.db.prepare('SELECT id, ord FROM proj_runs ORDER BY ord').all()).toEqual([
      { id: 'run_1', ord: 1 },
      { id: 'run_3', ord: 5 },
      { id: 'run_2', ord: 9 },
    ]);
  });

  it('an update of a row in place leaves the thread index alone: one WAL frame, where moving the row writes two', () => {
    const { store } = openStore();
    store.commit({ projections: [runRow(1, 'thr_a', 1)] });
    store.db.pragma('wal_autocheckpoint = 0');
    const framesOf = (change: ProjectionChange): number => {
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      store.commit({ projections: [change] });
      const [checkpoint] = store.db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
      return checkpoint!.log;
    };
    expect(framesOf(runRow(1, 'thr_a', 1, 'completed'))).toBe(1);
    expect(framesOf(runRow(1, 'thr_a', 7))).toBe(2);
  });

  it('writes more rows than one statement carries, in order, with their sequences', () => {
    const { store } = openStore();
    const units = Array.from({ length: 300 }, (_, i) => typicalUnit('thr_big', i + 1));
    const results = store.commitMany(units);
    expect(results.at(-1)).toMatchObject({ lastSequence: 300 });
    expect(store.events.readAfter(0).map((e) => e.eventId)).toEqual(units.map((u) => u.events![0]!.eventId));
    expect(store.entities.get(units[299]!.snapshots![0]!.entityId)).toMatchObject({ lastSequence: 300 });
  });

  it('a conflict in a chunk already written mid-group refuses the group typed and writes nothing', () => {
    const { store } = openStore();
    const held = typicalUnit('thr_held', 1);
    store.commit(held);
    const units = Array.from({ length: 300 }, (_, i) => typicalUnit('thr_big', i + 1));
    // Row 5 of the first 128-row chunk, written as soon as the 129th row is staged.
    units[4] = { snapshots: [{ ...units[4]!.snapshots![0]!, entityId: held.snapshots![0]!.entityId }] };
    const error = expectRefused(() => store.commitMany(units), 'conflict');
    expect(error.message).toContain(held.snapshots![0]!.entityId);
    expect(tableCounts(store)).toMatchObject({ events: 1, entities: 1 });
  });

  it('an invalid unit late in a large group is refused typed after rows were written, and the group writes nothing', () => {
    const { store } = openStore();
    const units = Array.from({ length: 300 }, (_, i) => typicalUnit('thr_big', i + 1));
    units[290] = { ...units[290]!, events: [{ ...units[290]!.events![0]!, payload: { threadId: 7 } as never }] };
    expectRefused(() => store.commitMany(units), 'invalid_payload');
    expect(tableCounts(store)).toMatchObject({ events: 0, entities: 0 });
    expect(store.commitMany(units.slice(0, 290)).at(-1)).toMatchObject({ lastSequence: 290 });
  });
});
