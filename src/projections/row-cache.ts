import type { ProjectionName } from '../domain/projections.js';

/** At most this many hot rows per thread: the open messages and items of a run, with room. */
const capacity = 32;

/**
 * A thread's hot projection rows (issue 12): the rows its last steps appended text to (the
 * open message, its turn item, a streaming tool output), as they stand on disk, so the
 * next delta extends them without reading, parsing and folding the row again. It holds
 * only rows whose last committed change was an append made by this thread's steps (all
 * writes of a thread's rows go through its mailbox); a full write or delete evicts the
 * row, and the owner clears it when a step fails or the thread passivates: the rows on
 * disk stay the truth.
 */
export class RowCache {
  private readonly rows = new Map<string, unknown>();

  private static key(name: ProjectionName, id: string): string {
    return `${name}\u0000${id}`;
  }

  get(name: ProjectionName, id: string): unknown {
    return this.rows.get(RowCache.key(name, id));
  }

  /** Records a committed row; the least recently written one leaves when full. */
  set(name: ProjectionName, id: string, row: unknown): void {
    const key = RowCache.key(name, id);
    this.rows.delete(key);
    this.rows.set(key, row);
    if (this.rows.size > capacity) this.rows.delete(this.rows.keys().next().value!);
  }

  evict(name: ProjectionName, id: string): void {
    this.rows.delete(RowCache.key(name, id));
  }

  clear(): void {
    this.rows.clear();
  }

  get size(): number {
    return this.rows.size;
  }
}
