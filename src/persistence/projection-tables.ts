import type { Statement } from 'better-sqlite3';
import {
  appendableProjections,
  projectionNames,
  type ProjectionName,
  type ProjectionRow,
} from '../domain/projections.js';
import type { Db } from './database.js';
import type { ValidUnit } from './commit-unit.js';
import { TextChunks } from './text-chunks.js';
import { MultiRowInsert, type RowShape } from './multi-row-insert.js';
import { CommittedRows } from './committed-rows.js';

const appendable: ReadonlySet<string> = new Set(appendableProjections);

interface Statements {
  upsert: MultiRowInsert;
  remove: Statement;
  byId: Statement<[string], { id: string; data: string }>;
  byThread: Statement<[string], { id: string; data: string }>;
  all: Statement<[], { id: string; data: string }>;
  /** The rows kept in memory; none for tables that deltas append to. */
  committed: CommittedRows | null;
}

/**
 * A projection row, in the order `apply` stages its values. An update sets only data and
 * sequence: naming thread_id or ord in the SET would rewrite the thread index's page even
 * when they are unchanged, one more WAL frame per updated row. A row that does change
 * thread or order is skipped by the WHERE, so fewer rows change than were written, and the
 * table writes it again by a statement that moves it.
 */
export const projectionRow = (name: ProjectionName): RowShape => ({
  head: `INSERT INTO proj_${name} (id, thread_id, ord, data, sequence)`,
  width: 5,
  tail: 'ON CONFLICT (id) DO UPDATE SET data = excluded.data, sequence = excluded.sequence WHERE thread_id IS excluded.thread_id AND ord = excluded.ord',
});

/** The read-model tables (`proj_<name>`), one prepared statement set each. */
export class ProjectionTables {
  private readonly tables = new Map<string, Statements>();
  private readonly chunks: TextChunks;

  constructor(private readonly db: Db) {
    this.chunks = new TextChunks(db);
    for (const name of projectionNames) {
      const t = `proj_${name}`;
      const shape = projectionRow(name);
      // One row's upsert that may also move it to another thread or order.
      const move = db.prepare(
        `${shape.head} VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET thread_id = excluded.thread_id, ord = excluded.ord, data = excluded.data, sequence = excluded.sequence`,
      );
      this.tables.set(name, {
        // Fewer rows changed than written: the skipped ones move (see `projectionRow`).
        upsert: new MultiRowInsert(db, shape, (values, changes) => {
          if (changes === values.length / 5) return;
          for (let i = 0; i < values.length; i += 5) move.run(values.slice(i, i + 5));
        }),
        remove: db.prepare(`DELETE FROM ${t} WHERE id = ?`),
        byId: db.prepare(`SELECT id, data FROM ${t} WHERE id = ?`),
        byThread: db.prepare(`SELECT id, data FROM ${t} WHERE thread_id = ? ORDER BY ord, rowid`),
        all: db.prepare(`SELECT id, data FROM ${t} ORDER BY ord, rowid`),
        committed: appendable.has(name) ? null : new CommittedRows(),
      });
    }
  }

  private statements(name: string): Statements {
    const s = this.tables.get(name);
    if (!s) throw new Error(`no projection table ${name}`);
    return s;
  }

  /**
   * Applies a change inside the store's transaction. Upserts are staged and written by
   * `flush`; a delete first writes its table's staged upserts, so a table sees its
   * changes in order. Appended chunks live in their own table, written at once.
   */
  apply(change: ValidUnit['projections'][number], sequence: number): void {
    if (change.op === 'append') return this.chunks.append(change.projection, change.id, change.field, change.text);
    const s = this.statements(change.projection);
    if (change.op === 'delete') {
      s.upsert.flush();
      s.remove.run(change.id);
    } else s.upsert.row().push(change.id, change.threadId, change.ord, change.dataJson, sequence);
    if (s.committed) s.committed.stage(change.id, change.op === 'delete' ? null : change.row);
    else this.chunks.drop(change.projection, change.id);
  }

  /** The store's transaction committed: the rows it wrote are what `get` now answers. */
  committed(): void {
    for (const s of this.tables.values()) s.committed?.committed();
  }

  /** The store's transaction rolled back. */
  rolledBack(): void {
    for (const s of this.tables.values()) s.committed?.rolledBack();
  }

  /** Writes every table's staged upserts. */
  flush(): void {
    for (const s of this.tables.values()) s.upsert.flush();
  }

  discard(): void {
    for (const s of this.tables.values()) s.upsert.discard();
  }

  /** One row; rows of the tables no delta appends to come from memory once read. */
  get<P extends ProjectionName>(name: P, id: string): ProjectionRow<P> | null {
    const s = this.statements(name);
    const kept = s.committed?.get(id);
    if (kept !== undefined) return kept as ProjectionRow<P>;
    const row = s.byId.get(id);
    if (!row) return null;
    const parsed = this.parse(name, row);
    s.committed?.remember(id, parsed);
    return parsed;
  }

  /** Rows of one thread in `ord` order; with no thread, every row. */
  list<P extends ProjectionName>(name: P, threadId?: string): ProjectionRow<P>[] {
    const s = this.statements(name);
    const rows = threadId === undefined ? s.all.all() : s.byThread.all(threadId);
    return rows.map((r) => this.parse(name, r));
  }

  /**
   * The threads holding a row of `name` whose top-level fields take one of the given values,
   * in one pass inside SQLite: a start-up check over every thread would otherwise read and
   * parse each thread's rows (about 90 ms for 10,000 threads).
   */
  threadsWhere<P extends ProjectionName>(name: P, where: Readonly<Record<string, readonly string[]>>): string[] {
    const fields = Object.entries(where);
    for (const [field] of fields) if (!/^[A-Za-z]+$/.test(field)) throw new Error(`not a field name: ${field}`);
    const sql = fields
      .map(([field, values]) => `data ->> '$.${field}' IN (${values.map(() => '?').join(', ')})`)
      .join(' AND ');
    const rows = this.db
      .prepare<unknown[], { thread_id: string | null }>(`SELECT DISTINCT thread_id FROM proj_${name} WHERE ${sql}`)
      .all(...fields.flatMap(([, values]) => values));
    return rows.flatMap((r) => (r.thread_id === null ? [] : [r.thread_id]));
  }

  private parse<P extends ProjectionName>(name: P, row: { id: string; data: string }): ProjectionRow<P> {
    const parsed = JSON.parse(row.data) as ProjectionRow<P>;
    return appendable.has(name) ? this.chunks.fold(name, row.id, parsed) : parsed;
  }
}
