/** At most this many rows are kept: the rows of the threads at work, with room. */
const capacity = 4_096;

/**
 * Projection rows as committed, kept in memory so a step reads its thread's row without a
 * query and a parse (issue 12: the thread row was read from SQLite on every command, about
 * 20 µs of a paced command's step). The store is the only writer of these tables, so it
 * keeps the map true: a row written in a transaction is staged here and applied only once
 * the transaction has committed; a rolled-back one changes nothing.
 *
 * Rows are shared by every reader, so they are frozen, deeply: a reader that changed one in
 * place would change what everyone else reads, and now throws instead.
 */
export class CommittedRows {
  private readonly rows = new Map<string, unknown>();
  /** This transaction's writes, in order: the row as stored, or null when it is gone or unknown. */
  private staged: [string, unknown][] = [];

  get(key: string): unknown {
    return this.rows.get(key);
  }

  /** A row just read from disk. */
  remember(key: string, row: unknown): void {
    this.set(key, row);
  }

  /** Inside a transaction: the row as it will be stored, or null to forget it. */
  stage(key: string, row: unknown): void {
    this.staged.push([key, row]);
  }

  /** The transaction committed: its rows are now the truth. */
  committed(): void {
    const staged = this.staged;
    this.staged = [];
    for (const [key, row] of staged) {
      if (row === null) this.rows.delete(key);
      else this.set(key, row);
    }
  }

  /** The transaction rolled back: nothing it staged happened. */
  rolledBack(): void {
    this.staged = [];
  }

  private set(key: string, row: unknown): void {
    this.rows.delete(key);
    this.rows.set(key, deepFreeze(row));
    if (this.rows.size > capacity) this.rows.delete(this.rows.keys().next().value!);
  }
}

function deepFreeze(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (const item of value) deepFreeze(item);
  else for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
