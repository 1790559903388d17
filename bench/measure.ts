import { cpus, totalmem } from 'node:os';

/**
 * A full collection, when `npm run bench` exposes it (--expose-gc): called after a side
 * has made its inputs and before it is timed, so no side pays for garbage its setup (or
 * another side) left behind.
 */
export const collectGarbage = (): void => (globalThis as { gc?: () => void }).gc?.();

/** Whether `collectGarbage` collects (the run exposes the collector). */
export const canCollectGarbage = (): boolean => typeof (globalThis as { gc?: unknown }).gc === 'function';

/** Runs `fn` `iterations` times after a warm-up and returns operations per second. */
export function opsPerSecond(
  iterations: number,
  fn: (i: number) => void,
  warmup = Math.min(1_000, iterations),
): number {
  for (let i = 0; i < warmup; i++) fn(-1 - i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return iterations / seconds;
}

/** The best of `rounds` runs: the least disturbed by whatever else the machine is doing. */
export function bestOf(rounds: number, run: () => number): number {
  let best = 0;
  for (let r = 0; r < rounds; r++) best = Math.max(best, run());
  return best;
}

/**
 * Every round's result of each side, the sides taking turns round by round: a figure and
 * its baseline then see the same drift of the machine's load, instead of one side getting
 * a quiet minute and the other a busy one.
 */
export function interleavedRounds<K extends string>(
  rounds: number,
  sides: Record<K, () => number>,
): Record<K, number[]> {
  const names = Object.keys(sides) as K[];
  const runs = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < rounds; r++) for (const k of names) runs[k].push(sides[k]());
  return runs;
}

export const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** The `p`th percentile of `xs` (nearest rank). */
export const pct = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/**
 * Runs a workload and its baselines in alternating blocks and pools each side's samples:
 * the machine's load drifts (other processes come and go), and alternating puts every
 * side under the same drift instead of giving one the quiet part of the run.
 */
export async function alternating<K extends string>(
  total: number,
  blocks: number,
  sides: Record<K, (from: number, count: number) => Promise<number[]>>,
): Promise<Record<K, number[]>> {
  const names = Object.keys(sides) as K[];
  const out = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  const size = Math.ceil(total / blocks);
  for (let from = 0; from < total; from += size) {
    const count = Math.min(size, total - from);
    for (const name of names) {
      collectGarbage(); // between blocks, so no side pays for the other's garbage
      out[name].push(...(await sides[name](from, count)));
    }
  }
  return out;
}

export function machineDescription(): string {
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  return `${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`;
}

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export interface BenchRow {
  metric: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
  verdict: 'met' | 'missed' | 'info';
}

export interface BenchSection {
  title: string;
  notes: string[];
  rows: BenchRow[];
}
