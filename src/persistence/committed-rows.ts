/** At most this many rows of one table are kept: the rows of the threads at work, with room. */
const capacity = 1_024;

/**
 * One projection table's rows as committed, kept in memory once read, so a step reads its
 * thread's row without a query and a parse (issue 12: the thread row was read from SQLite
 * on every command, about 20 µs of a paced command's step). The store is the only writer
 * of these tables, so it keeps the map true: a write to a kept row is staged in its
 * transaction and applied only once that has committed; a rolled-back one changes nothing.
 * Rows that are written but never read are not kept: a group commit of many threads' rows
 * would only churn the map and keep garbage alive.
 *
 * Rows are shared by every reader, so they are frozen, deeply: a reader that changed one in
 * place would change what everyone else reads, and now throws instead.
 */
export class CommittedRows {
  private readonly rows = new Map<string, unknown>();
  /** This transaction's writes to kept rows, in order: the row as stored, or null when it is gone. */
  private staged: [string, unknown][] = [];

  get(id: string): unknown {
    return this.rows.get(id);
  }

  /** A row just read from disk. */
  remember(id: string, row: unknown): void {
    this.rows.delete(id);
    this.rows.set(id, deepFreeze(row));
    if (this.rows.size > capacity) this.rows.delete(this.rows.keys().next().value!);
  }

  /** Inside a transaction: the row as it will be stored, or null when it is deleted. */
  stage(id: string, row: unknown): void {
    if (this.rows.has(id)) this.staged.push([id, row]);
  }

  /** The transaction committed: its rows are now the truth. */
  committed(): void {
    if (this.staged.length === 0) return;
    const staged = this.staged;
    this.staged = [];
    for (const [id, row] of staged) {
      if (row === null) this.rows.delete(id);
      else this.remember(id, row);
    }
  }

  /** The transaction rolled back: nothing it staged happened. */
  rolledBack(): void {
    if (this.staged.length) this.staged = [];
  }
}

function deepFreeze(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (const item of value) deepFreeze(item);
  else for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
