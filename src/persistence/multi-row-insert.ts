import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

/** The most rows one statement carries: 128 rows of 8 columns stay far below SQLite's variable limit. */
const maxRows = 128;

/**
 * One INSERT written as `VALUES (...),(...),...` for many rows at once (issue 12): a group
 * commit binds and steps one statement per 128 rows of a table instead of one per row,
 * which is where a row's cost lay beside SQLite's own work. Rows are staged in order and
 * written in that order, so an upsert of the same key twice keeps the last, as before.
 * Statements are prepared lazily per power-of-two row count, so at most eight per table.
 */
export class MultiRowInsert {
  private readonly statements = new Map<number, Statement>();
  /** Staged values in full chunks of `maxRows` rows, bound as they are; the last may be partial. */
  private chunks: unknown[][] = [];
  private current: unknown[] = [];
  private readonly chunkLength: number;

  /**
   * @param head `INSERT INTO t (a, b, ...)`
   * @param width the number of columns per row
   * @param tail what follows the values (an `ON CONFLICT` clause), or ''
   */
  constructor(
    private readonly db: Db,
    private readonly head: string,
    private readonly width: number,
    private readonly tail = '',
  ) {
    this.chunkLength = maxRows * width;
  }

  /** Where the next row's `width` values go: the caller pushes them, in column order. */
  row(): unknown[] {
    if (this.current.length === this.chunkLength) {
      this.chunks.push(this.current);
      this.current = [];
    }
    return this.current;
  }

  /** The staged rows, `width` values each, in order; for a caller that checks what a write did. */
  staged(): unknown[][] {
    return this.current.length ? [...this.chunks, this.current] : this.chunks;
  }

  /** Writes every staged row; returns SQLite's count of rows changed. */
  flush(): number {
    const chunks = this.chunks;
    const last = this.current;
    this.discard();
    let changes = 0;
    for (const chunk of chunks) changes += this.statement(maxRows).run(chunk).changes;
    // The partial chunk goes in power-of-two parts, so few statements are ever prepared.
    let from = 0;
    let left = last.length / this.width;
    while (left > 0) {
      let n = maxRows;
      while (n > left) n >>= 1;
      const to = from + n * this.width;
      changes += this.statement(n).run(from === 0 && to === last.length ? last : last.slice(from, to)).changes;
      from = to;
      left -= n;
    }
    return changes;
  }

  /** Forgets the staged rows (their transaction failed). */
  discard(): void {
    this.chunks = [];
    this.current = [];
  }

  private statement(rows: number): Statement {
    let s = this.statements.get(rows);
    if (!s) {
      const row = `(${Array.from({ length: this.width }, () => '?').join(', ')})`;
      s = this.db.prepare(`${this.head} VALUES ${Array.from({ length: rows }, () => row).join(', ')} ${this.tail}`);
      this.statements.set(rows, s);
    }
    return s;
  }
}
