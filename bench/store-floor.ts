import { Store } from '../src/persistence/store.js';
import { runView } from '../test/support/units.js';

/**
 * The most this machine's SQLite can do for typical units with Baton's schema: the same
 * three rows per unit (event, entity snapshot, projection row, with every index), made
 * inside SQLite by one INSERT ... SELECT per table and transaction. No JavaScript per row,
 * no binding, no validation. Whatever the real commit path costs beyond this is ours.
 * Unit i belongs to thread `i % threads`, so 64 threads dirty as many index pages per
 * commit as 64 thread actors do.
 */
export function sqliteFloor(path: string, units: number, perTransaction: number, threads: number): number {
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
    const payloads = {
      event: JSON.stringify({
        threadId: 'thr_floor',
        runId: 'run_floor',
        from: 'starting',
        to: 'running',
        reason: null,
      }),
      snapshot: JSON.stringify({ status: 'active', value: 'running', context: { runId: 'run_floor', ordinal: 1 } }),
      row: JSON.stringify(runView('thr_floor', 1)),
    };
    const commit = db.transaction((from: number) => {
      const args = { from, count: perTransaction, ...payloads };
      events.run(args);
      entities.run(args);
      rows.run(args);
    });
    const start = process.hrtime.bigint();
    for (let from = 1; from <= units; from += perTransaction) commit.immediate(from);
    return units / (Number(process.hrtime.bigint() - start) / 1e9);
  } finally {
    store.close();
  }
}
