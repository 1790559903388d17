import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../src/persistence/database.js';
import { MultiRowInsert, type RowShape } from '../src/persistence/multi-row-insert.js';
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
 * through the store's own multi-row inserts and commits each in one transaction.
 */
const db = openDatabase((workerData as { path: string }).path);
/** A table of the store: its multi-row insert and the number of values in each of its rows. */
const table = (shape: RowShape) => ({ rows: new MultiRowInsert(db, shape), width: shape.width });
const events = table(eventRow);
const entities = table(entityRow);
const projections = table(projectionRow('runs'));

/** Stages a table's flat values row by row, as the store's tables do, and writes them. */
function insert({ rows, width }: ReturnType<typeof table>, values: unknown[]): void {
  for (let i = 0; i < values.length; i += width) {
    const row = rows.row();
    for (let c = i; c < i + width; c++) row.push(values[c]);
  }
  rows.flush();
}

const commit = db.transaction((batch: FlatBatch) => {
  insert(events, batch.events);
  insert(entities, batch.entities);
  insert(projections, batch.projections);
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
