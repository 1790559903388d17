import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import { idOf, idPrefixes, type IdFamily, type IdOf } from './ids.js';

/**
 * Time and ids enter Baton only through these two interfaces. Machines never call them:
 * the runtime reads them and puts the values on events. Tests pass deterministic ones.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
}

export interface IdSource {
  /** A new id of `family`, branded as that family's id type. */
  next<F extends IdFamily>(family: F): IdOf[F];
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/**
 * Production ids: a ULID after the family prefix. ULIDs sort by creation time, so new
 * rows land at the right edge of every index keyed by id (events, entities, projections)
 * instead of on a random page each; under many concurrent threads that halves the pages a
 * group commit writes to the WAL (see BENCHMARKS.md). Monotonic within a millisecond.
 */
export function timeOrderedIds(clock: Clock = systemClock): IdSource {
  const ulid = monotonicFactory(pooledRandom());
  // A family's prefix and a ULID (Crockford base32) always make a valid id of that family
  // (the contract tests parse them), so each is branded without a zod parse per id.
  return { next: <F extends IdFamily>(family: F) => `${idPrefixes[family]}_${ulid(clock.nowMs())}` as IdOf[F] };
}

/**
 * ulid's default random source asks the OS for bytes on every new millisecond (about
 * 47 µs each, so once per command at a few hundred commands/s); a pool filled 4 KiB at a
 * time gives the same cryptographic randomness for about 2 µs.
 */
function pooledRandom(): () => number {
  let pool = randomBytes(4096);
  let at = 0;
  return () => {
    if (at === pool.length) {
      pool = randomBytes(4096);
      at = 0;
    }
    return pool[at++]! / 256;
  };
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
  next<F extends IdFamily>(family: F): IdOf[F] {
    const n = (this.counters.get(family) ?? 0) + 1;
    this.counters.set(family, n);
    return idOf(family, `${idPrefixes[family]}_${this.salt}${n}`);
  }
}

export const isoAt = (ms: number): string => new Date(ms).toISOString();
