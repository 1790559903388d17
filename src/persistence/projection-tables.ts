import type { Statement } from 'better-sqlite3';
import { projectionNames, type ProjectionName, type ProjectionRow } from '../domain/projections.js';
import type { Db } from './database.js';
import type { ValidUnit } from './commit-unit.js';

interface Statements {
  upsert: Statement;
  remove: Statement;
  byId: Statement<[string], { data: string }>;
  byThread: Statement<[string], { data: string }>;
  all: Statement<[], { data: string }>;
}

/** The read-model tables (`proj_<name>`), one prepared statement set each. */
export class ProjectionTables {
  private readonly tables = new Map<string, Statements>();

  constructor(db: Db) {
    for (const name of projectionNames) {
      const t = `proj_${name}`;
      this.tables.set(name, {
        upsert: db.prepare(`INSERT INTO ${t} (id, thread_id, ord, data, sequence) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (id) DO UPDATE SET thread_id = excluded.thread_id, ord = excluded.ord, data = excluded.data, sequence = excluded.sequence`),
        remove: db.prepare(`DELETE FROM ${t} WHERE id = ?`),
        byId: db.prepare(`SELECT data FROM ${t} WHERE id = ?`),
        byThread: db.prepare(`SELECT data FROM ${t} WHERE thread_id = ? ORDER BY ord, rowid`),
        all: db.prepare(`SELECT data FROM ${t} ORDER BY ord, rowid`),
      });
    }
  }

  private statements(name: string): Statements {
    const s = this.tables.get(name);
    if (!s) throw new Error(`no projection table ${name}`);
    return s;
  }

  apply(change: ValidUnit['projections'][number], sequence: number): void {
    const s = this.statements(change.projection);
    if (change.op === 'delete') s.remove.run(change.id);
    else s.upsert.run(change.id, change.threadId, change.ord, change.dataJson, sequence);
  }

  get<P extends ProjectionName>(name: P, id: string): ProjectionRow<P> | null {
    const row = this.statements(name).byId.get(id);
    return row ? (JSON.parse(row.data) as ProjectionRow<P>) : null;
  }

  /** Rows of one thread in `ord` order; with no thread, every row. */
  list<P extends ProjectionName>(name: P, threadId?: string): ProjectionRow<P>[] {
    const s = this.statements(name);
    const rows = threadId === undefined ? s.all.all() : s.byThread.all(threadId);
    return rows.map((r) => JSON.parse(r.data) as ProjectionRow<P>);
  }
}
