import { performance } from 'node:perf_hooks';
import { Command } from '../src/domain/commands.js';
import type { ThreadId } from '../src/domain/ids.js';
import type { ApiRig } from './api-rig.js';
import { alternating, fmt, pct, type BenchRow } from './measure.js';

// Why the command-to-ack target is hard on this host: code run after a pause runs several
// times slower than the same code run back to back, even when the core never idles in
// between. At 200 commands/s every command and every echo starts after such a pause.

/** The gap between two commands at the API bench's 200/s. */
export const PAUSE_MS = 5;
const SAMPLES = 1_000;
const BLOCKS = 5;

/**
 * Keeps the core busy for `ms` without touching memory: what slows the call after it is
 * then what the pause cost its caches and predictors, not a sleeping core waking up.
 */
function busyPause(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/**
 * Times `call` `count` times, each after a busy pause of `pauseMs` (0: back to back). A
 * synchronous call is timed without an await, so the pure computation carries no microtask.
 */
async function timed(count: number, pauseMs: number, call: () => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    busyPause(pauseMs);
    const start = performance.now();
    const pending = call();
    if (pending instanceof Promise) await pending;
    out.push(performance.now() - start);
  }
  return out;
}

export interface PausePenalty {
  commandHot: number[];
  commandPaused: number[];
  echoHot: number[];
  echoPaused: number[];
  computeHot: number[];
  computePaused: number[];
}

/**
 * The same settings update, the same bare echo and a fixed piece of pure computation (five
 * zod parses of the command: no I/O, no store), each back to back and after a busy pause,
 * in alternating blocks.
 */
export async function measurePausePenalty(rig: ApiRig, threadId: ThreadId): Promise<PausePenalty> {
  let n = 0;
  const command = () => rig.client.command('thread.settings.update', { threadId, title: `pause ${n++}` });
  const payload = { commandId: 'c', type: 'thread.settings.update', threadId, title: 'pause' };
  const echo = () => rig.echoSocket.emitWithAck('echo', payload);
  const compute = () => {
    for (let i = 0; i < 5; i++) Command.parse(payload);
  };
  return alternating(SAMPLES, BLOCKS, {
    commandHot: (_, count) => timed(count, 0, command),
    commandPaused: (_, count) => timed(count, PAUSE_MS, command),
    echoHot: (_, count) => timed(count, 0, echo),
    echoPaused: (_, count) => timed(count, PAUSE_MS, echo),
    computeHot: (_, count) => timed(count, 0, compute),
    computePaused: (_, count) => timed(count, PAUSE_MS, compute),
  });
}

export const pausePenaltyNote = `Pause penalty: each call timed back to back and after a ${PAUSE_MS} ms pause with the core kept busy (a spin that touches no memory, so no core goes to sleep), ${fmt(SAMPLES)} of each in alternating blocks. The control is pure computation (five zod parses of the command): what it loses after a pause is the host's, not Baton's.`;

/** The three p50 rows: after a pause against back to back. */
export function pausePenaltyRows(p: PausePenalty): BenchRow[] {
  const row = (what: string, paused: number[], hot: number[], unit: 'ms' | 'µs'): BenchRow => {
    const scale = unit === 'ms' ? 1 : 1_000;
    const digits = unit === 'ms' ? 2 : 1;
    return {
      metric: `${what} after a ${PAUSE_MS} ms busy pause, p50`,
      value: `${fmt(pct(paused, 50) * scale, digits)} ${unit}`,
      baseline: `${fmt(pct(hot, 50) * scale, digits)} ${unit} back to back`,
      ratio: `${fmt(pct(paused, 50) / pct(hot, 50), 1)}×`,
      target: 'info: the host slows code run after a pause',
      verdict: 'info',
    };
  };
  return [
    row('bare echo round trip', p.echoPaused, p.echoHot, 'ms'),
    row('command to ack', p.commandPaused, p.commandHot, 'ms'),
    row('pure computation (five zod parses of a command)', p.computePaused, p.computeHot, 'µs'),
  ];
}
