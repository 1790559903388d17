import { parentPort, workerData } from 'node:worker_threads';
import type { Statement } from 'better-sqlite3';
import { openDatabase } from '../src/persistence/database.js';
import { maxRows, multiRowSql, type RowShape } from '../src/persistence/multi-row-insert.js';
import { eventRow } from '../src/persistence/event-log.js';
import { entityRow } from '../src/persistence/entity-table.js';
import { projectionRow } from '../src/persistence/projection-tables.js';

/** One group of units as plain values, each table's rows one after another in its shape's column order. */
export interface FlatBatch {
  events: unknown[];
  entities: unknown[];
  projections: unknown[];
}

/** What the worker answers: a batch committed (its index), or the database closed. */
export type WorkerReply = { committed: number } | 'closed';

/**
 * The writer thread of the probe (`writer-thread-probe.ts`): binds the batches it is sent
 * by the store's own multi-row INSERT statements and commits each in one transaction.
 */
const db = openDatabase((workerData as { path: string }).path);
const statements = new Map<string, Statement>();

function insert(shape: RowShape, values: unknown[]): void {
  for (let from = 0; from < values.length;) {
    let rows = maxRows;
    while (rows * shape.width > values.length - from) rows >>= 1;
    const sql = multiRowSql(shape, rows);
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    statement.run(...values.slice(from, from + rows * shape.width));
    from += rows * shape.width;
  }
}

const runs = projectionRow('runs');
const commit = db.transaction((batch: FlatBatch) => {
  insert(eventRow, batch.events);
  insert(entityRow, batch.entities);
  insert(runs, batch.projections);
});

const port = parentPort!;
port.on('message', (message: { index: number; batch: FlatBatch } | 'close') => {
  if (message === 'close') {
    db.close();
    port.postMessage('closed' satisfies WorkerReply);
    return;
  }
  commit.immediate(message.batch);
  port.postMessage({ committed: message.index } satisfies WorkerReply);
});
