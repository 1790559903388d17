import {
  appendToRow,
  type ProjectionChange,
  type ProjectionName,
  type ProjectionRow,
} from '../../../src/domain/projections.js';
import type { ProjectionTables } from '../../../src/persistence/projection-tables.js';

interface Entry {
  threadId: string | null;
  ord: number;
  /** Insertion order: ties on `ord` keep it, as the store's rowid does. */
  seq: number;
  row: unknown;
}

/** One table's rows as plain data (what the console keeps in sessionStorage). */
export type TableDump = [id: string, threadId: string | null, ord: number, row: unknown][];

/**
 * The projection tables in the browser: the rows a stream's snapshot gave, kept in memory
 * and changed by the projector's own output (`ProjectionOverlay.changes()`), so the console
 * applies events exactly the way Baton's projection does. Only the `kept` tables are held:
 * the projector's writes to others (activities, say) are dropped.
 */
export class MemoryTables {
  private readonly tables = new Map<ProjectionName, Map<string, Entry>>();
  /** Sorted entries per table and thread; an entry's row may change in place without a re-sort. */
  private readonly sorted = new Map<string, Entry[]>();
  private nextSeq = 0;

  constructor(readonly kept: ReadonlySet<ProjectionName>) {}

  /** What the overlay reads through (it needs `get` and `list` only). */
  asBase(): ProjectionTables {
    return this as unknown as ProjectionTables;
  }

  get<P extends ProjectionName>(name: P, id: string): ProjectionRow<P> | null {
    return (this.tables.get(name)?.get(id)?.row as ProjectionRow<P> | undefined) ?? null;
  }

  /** Rows (of one thread, or all) in `ord` order, then insertion order; the order is kept until a row moves. */
  list<P extends ProjectionName>(name: P, threadId?: string): ProjectionRow<P>[] {
    const key = `${name}\u0000${threadId ?? ''}`;
    let entries = this.sorted.get(key);
    if (!entries) {
      entries = [...(this.tables.get(name)?.values() ?? [])].filter(
        (e) => threadId === undefined || e.threadId === threadId,
      );
      entries.sort((a, b) => a.ord - b.ord || a.seq - b.seq);
      this.sorted.set(key, entries);
    }
    return entries.map((e) => e.row as ProjectionRow<P>);
  }

  put(name: ProjectionName, id: string, threadId: string | null, ord: number, row: unknown): void {
    if (!this.kept.has(name)) return;
    let table = this.tables.get(name);
    if (!table) this.tables.set(name, (table = new Map()));
    const entry = table.get(id);
    // A row rewritten in place keeps its place: no re-sort (a streaming message is rewritten often).
    if (entry && entry.threadId === threadId && entry.ord === ord) {
      entry.row = row;
      return;
    }
    table.set(id, { threadId, ord, seq: entry?.seq ?? this.nextSeq++, row });
    this.changed(name);
  }

  apply(changes: readonly ProjectionChange[]): void {
    for (const c of changes) {
      if (!this.kept.has(c.projection)) continue;
      if (c.op === 'upsert') this.put(c.projection, c.id, c.threadId, c.ord, c.row);
      else if (c.op === 'delete') {
        this.tables.get(c.projection)?.delete(c.id);
        this.changed(c.projection);
      } else {
        const entry = this.tables.get(c.projection)?.get(c.id);
        if (!entry) continue;
        entry.row = appendToRow(entry.row, c.field, c.text);
      }
    }
  }

  dump(): Partial<Record<ProjectionName, TableDump>> {
    const out: Partial<Record<ProjectionName, TableDump>> = {};
    for (const [name, table] of this.tables)
      out[name] = [...table.entries()]
        .sort(([, a], [, b]) => a.seq - b.seq)
        .map(([id, e]) => [id, e.threadId, e.ord, e.row]);
    return out;
  }

  private changed(name: ProjectionName): void {
    for (const key of this.sorted.keys()) if (key.startsWith(`${name}\u0000`)) this.sorted.delete(key);
  }
}
