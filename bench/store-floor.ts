import { Store } from '../src/persistence/store.js';
import { maxRows, multiRowSql } from '../src/persistence/multi-row-insert.js';
import { eventRow } from '../src/persistence/event-log.js';
import { entityRow } from '../src/persistence/entity-table.js';
import { projectionRow } from '../src/persistence/projection-tables.js';
import { runView, typicalUnit } from '../test/support/units.js';
import { validateUnit } from '../src/persistence/commit-unit.js';
import { timeOrderedIds } from '../src/domain/sources.js';
import { collectGarbage } from './measure.js';
import { discardStore } from './discard-store.js';

/**
 * The three JSON values of a typical unit as the store writes them, from a unit built as
 * the bench builds its own (ids from the production source, so of the production length).
 */
function typicalJson(): { event: string; snapshot: string; row: string } {
  const unit = validateUnit(typicalUnit('thr_floor', 20_000, { ids: timeOrderedIds() }));
  const row = unit.projections[0];
  if (row?.op !== 'upsert') throw new Error('a typical unit upserts its run row');
  return { event: unit.events[0]!.payloadJson, snapshot: unit.snapshots[0]!.snapshotJson, row: row.dataJson };
}

/**
 * The most this machine's SQLite can do for typical units with Baton's schema: the same
 * three rows per unit (event, entity snapshot, projection row, with every index; their JSON
 * a typical unit's, byte for byte), made inside SQLite by one INSERT ... SELECT per table and transaction. No JavaScript per row,
 * no binding, no validation. Whatever the real commit path costs beyond this is ours.
 * Unit i belongs to thread `i % threads`, so 64 threads dirty as many index pages per
 * commit as 64 thread actors do. Given `batchMs`, each transaction's time is pushed to it.
 */
export function sqliteFloor(
  path: string,
  units: number,
  perTransaction: number,
  threads: number,
  batchMs?: number[],
): number {
  const store = Store.open(path);
  try {
    const db = store.db;
    const series = 'WITH RECURSIVE u(i) AS (SELECT @from UNION ALL SELECT i + 1 FROM u WHERE i < @from + @count - 1)';
    const id = (prefix: string) => `'${prefix}_' || printf('%026d', i)`;
    const thread = `'thr_floor' || (i % ${threads})`;
    const events =
      db.prepare(`${series} INSERT INTO events (sequence, event_id, command_id, causation_id, thread_id, type, payload, at)
      SELECT i, ${id('evt')}, NULL, NULL, ${thread}, 'run.status-changed', @event, 1 FROM u`);
    const entities =
      db.prepare(`${series} INSERT INTO entities (entity_id, kind, thread_id, machine_id, machine_version, snapshot, last_sequence, updated_at)
      SELECT ${id('run')}, 'run', ${thread}, 'run', 1, @snapshot, i, 1 FROM u`);
    const rows = db.prepare(
      `${series} INSERT INTO proj_runs (id, thread_id, ord, data, sequence) SELECT ${id('run')}, ${thread}, i, @row, i FROM u`,
    );
    const payloads = typicalJson();
    const commit = db.transaction((from: number) => {
      const args = { from, count: perTransaction, ...payloads };
      events.run(args);
      entities.run(args);
      rows.run(args);
    });
    collectGarbage();
    const start = process.hrtime.bigint();
    for (let from = 1; from <= units; from += perTransaction) {
      const before = batchMs && performance.now();
      commit.immediate(from);
      if (batchMs) batchMs.push(performance.now() - before!);
    }
    return units / (Number(process.hrtime.bigint() - start) / 1e9);
  } finally {
    discardStore(store);
  }
}

/**
 * The most a JavaScript commit path can reach through better-sqlite3: the same three rows
 * per unit, their values made beforehand (flat strings, no validation, no staging), bound
 * by the multi-row INSERT statements the store uses, `maxRows` (128) rows per statement. What the
 * store costs beyond this is validation and staging; what this costs beyond `sqliteFloor`
 * is carrying each value from JavaScript into SQLite.
 */
export function bindingFloor(path: string, units: number, perTransaction: number): number {
  const store = Store.open(path);
  try {
    const db = store.db;
    const rows = maxRows;
    const events = db.prepare(multiRowSql(eventRow, rows));
    const entities = db.prepare(multiRowSql(entityRow, rows));
    const projections = db.prepare(multiRowSql(projectionRow('runs'), rows));
    const thread = 'thr_floor';
    const values = Array.from({ length: units / rows }, (_, chunk) => {
      const e: unknown[] = [];
      const s: unknown[] = [];
      const p: unknown[] = [];
      for (let r = 0; r < rows; r++) {
        const i = chunk * rows + r + 1;
        const id = `run_${String(i).padStart(26, '0')}`;
        e.push(
          i,
          `evt_${String(i).padStart(26, '0')}`,
          null,
          null,
          thread,
          'run.status-changed',
          JSON.stringify({ threadId: thread, runId: id, from: 'starting', to: 'running', reason: null }),
          1,
        );
        s.push(
          id,
          'run',
          thread,
          'run',
          1,
          JSON.stringify({ status: 'active', value: 'running', context: { runId: id, ordinal: i } }),
          i,
          1,
        );
        p.push(id, thread, i, JSON.stringify(runView(thread, i, id)), i);
      }
      return { e, s, p };
    });
    collectGarbage();
    const perChunks = perTransaction / rows;
    const commit = db.transaction((from: number) => {
      for (let c = from; c < from + perChunks; c++) {
        const v = values[c]!;
        events.run(...v.e);
        entities.run(...v.s);
        projections.run(...v.p);
      }
    });
    const start = process.hrtime.bigint();
    for (let from = 0; from < values.length; from += perChunks) commit.immediate(from);
    return units / (Number(process.hrtime.bigint() - start) / 1e9);
  } finally {
    discardStore(store);
  }
}
