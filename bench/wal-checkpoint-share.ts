import { pct, sum } from './measure.js';

/**
 * What SQLite's own WAL checkpoint weighs in a group-commit round. `Store.open` leaves
 * checkpoints to SQLite (10,000 pages): a round of 40 batches crosses that mark once, so one
 * batch also copies the WAL back into the database, and Baton's rounds and the floor's alike
 * carry it (Baton's server runs checkpoints on a worker thread instead, never in a commit).
 * It is the same work on both sides, so it lifts their ratio; this says by how much.
 */
export interface CheckpointShare {
  /** The slowest batch of a round (the checkpoint's), median over rounds, ms. */
  slowestMs: { typical: number; floor: number };
  /** A round's median batch, median over rounds, ms. */
  medianMs: { typical: number; floor: number };
  /** Group commit against its floor with each round's slowest batch left out of both, best rounds, %. */
  ratioWithout: number;
}

export function checkpointShare(typical: number[][], floor: number[][], unitsPerBatch: number): CheckpointShare {
  const median = (rounds: number[][], of: (times: number[]) => number) => pct(rounds.map(of), 50);
  const slowest = (times: number[]) => Math.max(...times);
  const bestRateWithout = (rounds: number[][]) =>
    Math.max(...rounds.map((times) => ((times.length - 1) * unitsPerBatch) / (sum(times) - slowest(times))));
  return {
    slowestMs: { typical: median(typical, slowest), floor: median(floor, slowest) },
    medianMs: { typical: median(typical, (t) => pct(t, 50)), floor: median(floor, (t) => pct(t, 50)) },
    ratioWithout: (bestRateWithout(typical) / bestRateWithout(floor)) * 100,
  };
}
