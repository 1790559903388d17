import {
  appendToRow,
  type AppendableProjection,
  type AppendField,
  type ProjectionChange,
  type ProjectionName,
  type ProjectionRow,
} from '../domain/projections.js';
import type { ProjectionTables } from '../persistence/projection-tables.js';
import { RowCache } from './row-cache.js';

interface Entry {
  threadId: string | null;
  ord: number;
  row: unknown;
  /**
   * Set while the row's only changes in this step are appends to one field: they commit as
   * one appended chunk (the deltas of a burst coalesced) instead of a rewrite of the row.
   */
  append: { field: AppendField; parts: string[] } | null;
}

/**
 * The projections as they stand inside one step: the committed rows with this step's
 * changes laid over them. The projector reads and writes through it, so a step sees its
 * own changes before they are committed; `changes()` is what the commit writes and
 * `remember()` what the thread's row cache keeps once it is committed.
 */
export class ProjectionOverlay {
  private readonly layers = new Map<ProjectionName, Map<string, Entry | null>>();

  constructor(
    private readonly base: ProjectionTables,
    private readonly cache: RowCache = new RowCache(),
  ) {}

  private layer(name: ProjectionName): Map<string, Entry | null> {
    let l = this.layers.get(name);
    if (!l) this.layers.set(name, (l = new Map()));
    return l;
  }

  get<P extends ProjectionName>(name: P, id: string): ProjectionRow<P> | null {
    const entry = this.layers.get(name)?.get(id);
    if (entry !== undefined) return entry === null ? null : (entry.row as ProjectionRow<P>);
    return (this.cache.get(name, id) as ProjectionRow<P> | undefined) ?? this.base.get(name, id);
  }

  /** Rows of one thread: committed ones in their order, then rows new in this step. */
  list<P extends ProjectionName>(
    name: P,
    threadId: string,
    matches: (row: ProjectionRow<P>) => boolean = () => true,
  ): ProjectionRow<P>[] {
    const layer = this.layers.get(name);
    const committed = this.base.list(name, threadId) as (ProjectionRow<P> & { id: string })[];
    const seen = new Set<string>();
    const rows: ProjectionRow<P>[] = [];
    for (const row of committed) {
      seen.add(row.id);
      const entry = layer?.get(row.id);
      if (entry === null) continue;
      rows.push(entry ? (entry.row as ProjectionRow<P>) : row);
    }
    for (const [id, entry] of layer ?? []) {
      if (!seen.has(id) && entry && entry.threadId === threadId) rows.push(entry.row as ProjectionRow<P>);
    }
    return rows.filter(matches);
  }

  put<P extends ProjectionName>(name: P, id: string, threadId: string | null, row: ProjectionRow<P>, ord = 0): void {
    this.layer(name).set(id, { threadId, ord, row, append: null });
  }

  /**
   * Appends `text` to a string field of an existing row (no-op when there is none). The
   * row seen in this step is exactly the rewritten row; what is committed is the chunk.
   */
  append(name: AppendableProjection, id: string, field: AppendField, text: string): void {
    const layer = this.layer(name);
    const entry = layer.get(id);
    if (entry === null) return;
    if (entry) {
      entry.row = appendToRow(entry.row, field, text);
      if (entry.append && entry.append.field === field) entry.append.parts.push(text);
      // Appends to a second field in one step, or to a row rewritten in it: the row is written whole.
      else entry.append = null;
      return;
    }
    const row = this.get(name, id);
    if (!row) return;
    const { threadId, ord } = placeOf(name, row);
    layer.set(id, { threadId, ord, row: appendToRow(row, field, text), append: { field, parts: [text] } });
  }

  remove(name: ProjectionName, id: string): void {
    this.layer(name).set(id, null);
  }

  changes(): ProjectionChange[] {
    const out: ProjectionChange[] = [];
    for (const [projection, layer] of this.layers) {
      for (const [id, entry] of layer) {
        if (entry === null) out.push({ projection, op: 'delete', id } as ProjectionChange);
        else if (entry.append)
          out.push({
            projection: projection as AppendableProjection,
            op: 'append',
            id,
            field: entry.append.field,
            text: entry.append.parts.join(''),
          });
        else
          out.push({
            projection,
            op: 'upsert',
            id,
            threadId: entry.threadId,
            ord: entry.ord,
            row: entry.row,
          } as ProjectionChange);
      }
    }
    return out;
  }

  /**
   * After the commit: rows extended by an append are the committed row (the row they came
   * from was read from disk or the cache), so the cache keeps them; rows written whole or
   * deleted leave it, to be read from disk as stored (parsed, defaults applied).
   */
  remember(): void {
    for (const [projection, layer] of this.layers) {
      for (const [id, entry] of layer) {
        if (entry?.append) this.cache.set(projection, id, entry.row);
        else this.cache.evict(projection, id);
      }
    }
  }
}

/** Where an appended row stays: the thread and order it was stored with. */
function placeOf(name: AppendableProjection, row: unknown): { threadId: string | null; ord: number } {
  const r = row as { threadId: string; position?: number };
  return { threadId: r.threadId, ord: name === 'turn_items' ? (r.position ?? 0) : 0 };
}
