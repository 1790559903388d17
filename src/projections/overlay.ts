import type { ProjectionChange, ProjectionName, ProjectionRow } from '../domain/projections.js';
import type { ProjectionTables } from '../persistence/projection-tables.js';

interface Entry {
  threadId: string | null;
  ord: number;
  row: unknown;
}

/**
 * The projections as they stand inside one step: the committed rows with this step's
 * changes laid over them. The projector reads and writes through it, so a step sees its
 * own changes before they are committed; `changes()` is what the commit writes.
 */
export class ProjectionOverlay {
  private readonly layers = new Map<ProjectionName, Map<string, Entry | null>>();

  constructor(private readonly base: ProjectionTables) {}

  private layer(name: ProjectionName): Map<string, Entry | null> {
    let l = this.layers.get(name);
    if (!l) this.layers.set(name, (l = new Map()));
    return l;
  }

  get<P extends ProjectionName>(name: P, id: string): ProjectionRow<P> | null {
    const entry = this.layers.get(name)?.get(id);
    if (entry !== undefined) return entry === null ? null : (entry.row as ProjectionRow<P>);
    return this.base.get(name, id);
  }

  /** Rows of one thread: committed ones in their order, then rows new in this step. */
  list<P extends ProjectionName>(name: P, threadId: string, matches: (row: ProjectionRow<P>) => boolean = () => true): ProjectionRow<P>[] {
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
    this.layer(name).set(id, { threadId, ord, row });
  }

  remove(name: ProjectionName, id: string): void {
    this.layer(name).set(id, null);
  }

  changes(): ProjectionChange[] {
    const out: ProjectionChange[] = [];
    for (const [projection, layer] of this.layers) {
      for (const [id, entry] of layer) {
        out.push(
          entry === null
            ? ({ projection, op: 'delete', id } as ProjectionChange)
            : ({ projection, op: 'upsert', id, threadId: entry.threadId, ord: entry.ord, row: entry.row } as ProjectionChange),
        );
      }
    }
    return out;
  }
}
