import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

/** The most rows one statement carries: 128 rows of 8 columns stay far below SQLite's variable limit. */
export const maxRows = 128;

/**
 * Called after each statement with the values it wrote (`width` per row) and SQLite's count
 * of rows changed; throws to refuse the write (the caller's transaction then rolls back).
 */
export type WrittenCheck = (values: readonly unknown[], changes: number) => void;

/** One table's rows as the store writes them: the INSERT's head, columns per row and tail. */
export interface RowShape {
  /** `INSERT INTO t (a, b, ...)` */
  head: string;
  /** The number of columns per row. */
  width: number;
  /** What follows the values (an `ON CONFLICT` clause), if anything. */
  tail?: string;
}

/** The INSERT of `rows` rows of `shape` in one statement. */
export function multiRowSql(shape: RowShape, rows: number): string {
  const row = `(${Array.from({ length: shape.width }, () => '?').join(', ')})`;
  return `${shape.head} VALUES ${Array.from({ length: rows }, () => row).join(', ')} ${shape.tail ?? ''}`;
}

/**
 * One INSERT written as `VALUES (...),(...),...` for many rows at once (issue 12): a group
 * commit binds and steps one statement per 128 rows of a table instead of one per row,
 * which is where a row's cost lay beside SQLite's own work. Rows are written in the order
 * they are staged, so an upsert of the same key twice keeps the last, as before.
 * Statements are prepared lazily per power-of-two row count, so at most eight per table.
 *
 * A full chunk of 128 rows is written as soon as the next row is staged, inside the
 * caller's transaction: the strings it holds die young instead of living through the whole
 * group, so the garbage collector copies and promotes far less on a large group commit.
 */
export class MultiRowInsert {
  private readonly statements = new Map<number, Statement>();
  private current: unknown[] = [];
  private readonly chunkLength: number;

  /** @param check run after each statement, e.g. to refuse an upsert its WHERE skipped */
  constructor(
    private readonly db: Db,
    private readonly shape: RowShape,
    private readonly check?: WrittenCheck,
  ) {
    this.chunkLength = maxRows * shape.width;
  }

  /** Where the next row's `width` values go: the caller pushes them, in column order. */
  row(): unknown[] {
    if (this.current.length === this.chunkLength) {
      const full = this.current;
      this.current = [];
      this.write(maxRows, full);
    }
    return this.current;
  }

  /** Writes every staged row. Call inside the transaction that staged them. */
  flush(): void {
    const last = this.current;
    this.current = [];
    // The partial chunk goes in power-of-two parts, so few statements are ever prepared.
    let from = 0;
    const { width } = this.shape;
    let left = last.length / width;
    while (left > 0) {
      let n = maxRows;
      while (n > left) n >>= 1;
      const to = from + n * width;
      this.write(n, from === 0 && to === last.length ? last : last.slice(from, to));
      from = to;
      left -= n;
    }
  }

  /** Forgets the staged rows (their transaction failed). */
  discard(): void {
    this.current = [];
  }

  private write(rows: number, values: unknown[]): void {
    // Spread, not an array: better-sqlite3 then reads each value from the call's arguments
    // instead of fetching each from the array through V8's slower object API.
    const changes = this.statement(rows).run(...values).changes;
    this.check?.(values, changes);
  }

  private statement(rows: number): Statement {
    let s = this.statements.get(rows);
    if (!s) {
      s = this.db.prepare(multiRowSql(this.shape, rows));
      this.statements.set(rows, s);
    }
    return s;
  }
}
