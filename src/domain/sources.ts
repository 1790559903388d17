import { monotonicFactory } from 'ulid';
import { idPrefixes, type IdFamily } from './ids.js';

/**
 * Time and ids enter Baton only through these two interfaces. Machines never call them:
 * the runtime reads them and puts the values on events. Tests pass deterministic ones.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
}

export interface IdSource {
  next(family: IdFamily): string;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/**
 * Production ids: a ULID after the family prefix. ULIDs sort by creation time, so new
 * rows land at the right edge of every index keyed by id (events, entities, projections)
 * instead of on a random page each; under many concurrent threads that halves the pages a
 * group commit writes to the WAL (see BENCHMARKS.md). Monotonic within a millisecond.
 */
export function timeOrderedIds(clock: Clock = systemClock): IdSource {
  const ulid = monotonicFactory();
  return { next: (family) => `${idPrefixes[family]}_${ulid(clock.nowMs())}` };
}

/** A clock the test advances by hand. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  nowMs(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

/** Ids numbered per family in creation order: `run_1`, `run_2`, ... */
export class SequentialIds implements IdSource {
  private counters = new Map<IdFamily, number>();
  constructor(private readonly salt = '') {}
  next(family: IdFamily): string {
    const n = (this.counters.get(family) ?? 0) + 1;
    this.counters.set(family, n);
    return `${idPrefixes[family]}_${this.salt}${n}`;
  }
}

export const isoAt = (ms: number): string => new Date(ms).toISOString();
