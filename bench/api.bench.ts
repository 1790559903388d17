import { PerformanceObserver, performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { BatonClient } from '../src/client/baton-client.js';
import { loadConfig } from '../src/config.js';
import { Runtime } from '../src/actors/runtime.js';
import { ThreadId } from '../src/domain/ids.js';
import { SequentialIds } from '../src/domain/sources.js';
import { Store } from '../src/persistence/store.js';
import { startBaton } from '../src/app/baton-app.js';
import { tempDir } from '../test/support/temp.js';
import { alternating, fmt, pct, type BenchSection } from './measure.js';
import { codexRegistry } from '../test/support/providers.js';
import { apiRig, connect, echoServer, resultOf, type ApiRig } from './api-rig.js';
import { measurePausePenalty, pausePenaltyNote, pausePenaltyRows } from './pause-penalty.js';

/** Paces the workload (a fixed send rate); never used to wait for a result. */
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends at a fixed rate (not as fast as possible) and records each round trip. */
async function atRate(
  count: number,
  perSecond: number,
  send: (i: number) => Promise<unknown>,
  from = 0,
): Promise<number[]> {
  const out: Promise<number>[] = [];
  for (let i = from; i < from + count; i++) {
    const start = performance.now();
    out.push(send(i).then(() => performance.now() - start));
    await tick(1_000 / perSecond);
  }
  return Promise.all(out);
}

/** Enough that the p99 is the 20th slowest, not the 10th: one stall then moves it less. */
export const COMMANDS = 2_000;
export const COMMAND_RATE = 200;
/** Each side runs in this many alternating blocks. */
const BLOCKS = 5;

/** One command's round trip, with the time its event loop slept and whether a GC ran inside it. */
interface AckSample {
  ms: number;
  idleMs: number;
  start: number;
}

/**
 * Command to ack: `count` settings updates at `rate`/s, beside a bare echo of the same
 * payload and an echo after one commit of a command's size, at the same rate. Each
 * command also records how long its event loop slept (so the slowest can be told apart:
 * waiting for something, or kept from a core), and the GCs that ran are recorded.
 */
export async function measureCommandAck(
  rig: ApiRig,
  count = COMMANDS,
  rate = COMMAND_RATE,
): Promise<{ latency: number[]; baseline: number[]; floor: number[]; tail: AckTail }> {
  const threadId = await rig.newThread();
  const payload = (i: number) => ({ commandId: `c${i}`, type: 'thread.settings.update', threadId, title: `t${i}` });
  const samples: AckSample[] = [];
  const gcs: { start: number; end: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const command = async (i: number) => {
    const start = performance.now();
    const loop = performance.eventLoopUtilization();
    await rig.client.command('thread.settings.update', { threadId, title: `title ${i}` });
    samples.push({ ms: performance.now() - start, idleMs: performance.eventLoopUtilization(loop).idle, start });
  };
  try {
    const { latency, baseline, floor } = await alternating(count, BLOCKS, {
      baseline: (from, n) => atRate(n, rate, (i) => rig.echoSocket.emitWithAck('echo', payload(i)), from),
      floor: (from, n) => atRate(n, rate, (i) => rig.echoSocket.emitWithAck('commit', payload(i)), from),
      latency: (from, n) => atRate(n, rate, command, from),
    });
    return { latency, baseline, floor, tail: ackTail(samples, gcs) };
  } finally {
    observer.disconnect();
  }
}

/** What the slowest 1% of acks were made of: a loop that never slept was running, kept from a core or blocked in a synchronous call. */
export interface AckTail {
  slowest: number;
  neverSlept: number;
  withGc: number;
}

function ackTail(samples: AckSample[], gcs: { start: number; end: number }[]): AckTail {
  const slowest = [...samples].sort((a, b) => b.ms - a.ms).slice(0, Math.max(1, Math.ceil(samples.length / 100)));
  return {
    slowest: slowest.length,
    neverSlept: slowest.filter((s) => s.idleMs < 0.05).length,
    withGc: slowest.filter((s) => gcs.some((g) => g.start < s.start + s.ms && g.end > s.start)).length,
  };
}

export const SUBSCRIBERS = 100;
export const DELTAS = 300;
const DELTA_RATE = 200;
const BENCH_MESSAGE = 'msg_bench';

/** Sends `count` items at `perSecond`, then resolves once every client has seen each: the lag from send to each client's listener. */
async function fanOut(
  count: number,
  perSecond: number,
  clients: number,
  send: (i: number) => void,
  listen: (onItem: (i: number) => void) => void,
): Promise<number[]> {
  const sent = new Map<number, number>();
  const lags: number[] = [];
  let all!: () => void;
  const done = new Promise<void>((resolve) => (all = resolve));
  listen((i) => {
    lags.push(performance.now() - sent.get(i)!);
    if (lags.length === count * clients) all();
  });
  for (let i = 0; i < count; i++) {
    sent.set(i, performance.now());
    send(i);
    await tick(1_000 / perSecond);
  }
  await done;
  return lags;
}

/**
 * A streaming run fanned out to `subs` subscribers: lag from ingest to each client's
 * listener, beside a bare `io.emit` to as many clients at the same rate, in alternating
 * blocks (every client stays connected throughout).
 */
export async function measureFanOut(
  rig: ApiRig,
  subs = SUBSCRIBERS,
  deltas = DELTAS,
): Promise<{ lags: number[]; rawLags: number[] }> {
  const { app } = rig;
  const threadId = await rig.newThread();
  const subscribers = await Promise.all(Array.from({ length: subs }, () => BatonClient.connect(app.url, app.token)));
  const raw = await Promise.all(Array.from({ length: subs }, () => connect(rig.echo.url)));
  try {
    let onDelta: (i: number) => void = () => undefined;
    let onRaw: (i: number) => void = () => undefined;
    let runStarted!: () => void;
    const running = new Promise<void>((resolve) => (runStarted = resolve));
    await Promise.all(
      subscribers.map((s, n) =>
        s.subscribe({ stream: 'thread', threadId }, (e) => {
          if (n === 0 && e.type === 'run.status-changed' && (e.payload as { to?: unknown }).to === 'running')
            runStarted();
          if (e.type === 'message.delta' && (e.payload as { messageId?: unknown }).messageId === BENCH_MESSAGE)
            onDelta(Number((e.payload as { delta: string }).delta));
        }),
      ),
    );
    raw.forEach((s) => s.on('delta', (i: number) => onRaw(i)));
    const runId = String(resultOf(await rig.client.command('thread.message.send', { threadId, text: 'stream' })).runId);
    const start = app.runtime.store.outbox.list({ threadId }).find((e) => e.kind === 'provider.turn.start')!;
    const rootNodeId = String(start.payload.rootNodeId);
    // Streaming starts once the provider runs the turn: its start (checkpoint, process spawn) is not fan-out.
    await running;
    return await alternating(deltas, BLOCKS, {
      rawLags: (from, n) =>
        fanOut(
          n,
          DELTA_RATE,
          subs,
          (i) => rig.echo.io.emit('delta', from + i),
          (on) => (onRaw = (i) => on(i - from)),
        ),
      lags: (from, n) =>
        fanOut(
          n,
          DELTA_RATE,
          subs,
          (i) =>
            void app.runtime.ingest({
              type: 'message.delta',
              threadId,
              runId,
              nodeId: rootNodeId,
              messageId: BENCH_MESSAGE,
              delta: String(from + i),
            }),
          (on) => (onDelta = (i) => on(i - from)),
        ),
    });
  } finally {
    subscribers.forEach((s) => s.close());
    raw.forEach((s) => s.close());
  }
}

/** Cold start with 10,000 threads on disk, until the first command is acked, beside a bare server's first echo. */
export async function measureColdStart(workspace: string): Promise<{ coldMs: number; bareMs: number }> {
  const cold = tempDir('baton-bench-cold-');
  try {
    const seed = new Runtime({
      store: Store.open(`${cold.dir}/baton.sqlite`),
      providers: codexRegistry(),
      ids: new SequentialIds('seed'),
      maxLiveThreads: 100,
    });
    await Promise.all(
      Array.from({ length: 10_000 }, (_, i) =>
        seed.dispatch({ commandId: `seed_${i}`, type: 'thread.create', threadId: `thr_${i}`, cwd: workspace }),
      ),
    );
    seed.store.close();
    const t0 = performance.now();
    const coldApp = await startBaton(
      loadConfig({}, { dataDir: cold.dir, port: 0, token: 'bench-token-0123456789', model: 'scripted' }),
      pino({ level: 'silent' }),
    );
    const coldClient = await BatonClient.connect(coldApp.url, coldApp.token);
    const ack = await coldClient.command('thread.settings.update', {
      threadId: ThreadId.parse('thr_4321'),
      title: 'first command',
    });
    const coldMs = performance.now() - t0;
    if (!ack.ok) throw new Error(JSON.stringify(ack));
    coldClient.close();
    await coldApp.stop();
    const t1 = performance.now();
    const bare = await echoServer();
    const s = await connect(bare.url);
    await s.emitWithAck('echo', 1);
    const bareMs = performance.now() - t1;
    s.close();
    await bare.close();
    return { coldMs, bareMs };
  } finally {
    cold.cleanup();
  }
}

/** Command-to-ack latency, fan-out lag to 100 subscribers, and cold start with 10,000 threads. */
export async function benchApi(): Promise<BenchSection> {
  const rig = await apiRig();
  let ack: Awaited<ReturnType<typeof measureCommandAck>>;
  let fan: Awaited<ReturnType<typeof measureFanOut>>;
  let pause: Awaited<ReturnType<typeof measurePausePenalty>>;
  try {
    ack = await measureCommandAck(rig);
    pause = await measurePausePenalty(rig, await rig.newThread());
    fan = await measureFanOut(rig);
  } finally {
    await rig.close();
  }
  const workspace = tempDir('baton-bench-ws-');
  let start: Awaited<ReturnType<typeof measureColdStart>>;
  try {
    start = await measureColdStart(workspace.dir);
  } finally {
    workspace.cleanup();
  }

  const { latency, baseline, floor } = ack;
  const { lags, rawLags } = fan;
  const { coldMs, bareMs } = start;
  const p99 = pct(latency, 99);
  const ackRatio = p99 / pct(baseline, 99);
  const fanRatio = pct(lags, 99) / pct(rawLags, 99);
  return {
    title: 'Socket.IO API (issue 6)',
    notes: [
      `Client and server in one process on loopback. Latency: ${fmt(COMMANDS)} \`thread.settings.update\` commands (each validated, run in its thread's mailbox and committed before the ack) at ${COMMAND_RATE}/s, beside a bare Socket.IO echo of the same payload at the same rate.`,
      `Each figure and its baseline run in ${BLOCKS} alternating blocks whose samples are pooled, so both sides share the machine's load as it drifts.`,
      `Fan-out: ${DELTAS} provider deltas at ${DELTA_RATE}/s into one thread (its run started, the model silent) watched by ${SUBSCRIBERS} subscribed clients; lag from ingest to each client's listener, beside a bare \`io.emit\` to ${SUBSCRIBERS} other connected clients at the same rate.`,
      pausePenaltyNote,
      'Cold start: a data dir holding 10,000 threads; from starting Baton (store, runtime, recovery scan, Codex provider, offline model, server) to the first command acked, beside a bare Socket.IO server start and first echo.',
    ],
    rows: [
      {
        metric: 'command-to-ack latency p50',
        value: `${fmt(pct(latency, 50), 2)} ms`,
        baseline: `${fmt(pct(baseline, 50), 2)} ms echo`,
        ratio: `${fmt(pct(latency, 50) / pct(baseline, 50), 1)}×`,
        target: 'info',
        verdict: 'info',
      },
      {
        metric: 'command-to-ack latency p99',
        value: `${fmt(p99, 2)} ms`,
        baseline: `${fmt(pct(baseline, 99), 2)} ms echo`,
        ratio: `${fmt(ackRatio, 1)}×`,
        target: '≤ 2× echo',
        verdict: ackRatio <= 2 ? 'met' : 'missed',
      },
      {
        metric: 'the slowest 1% of command acks: how many never let the event loop sleep, and how many had a GC inside',
        value: `${ack.tail.neverSlept} and ${ack.tail.withGc} of ${ack.tail.slowest}`,
        baseline: '—',
        ratio: '—',
        target:
          'info: one that never slept was running, waiting for a core or in a synchronous call (SQLite), never waiting on the loop',
        verdict: 'info',
      },
      {
        metric: "command-to-ack floor p99: echo after one commit of a command's size",
        value: `${fmt(pct(floor, 99), 2)} ms`,
        baseline: `${fmt(pct(baseline, 99), 2)} ms echo`,
        ratio: `${fmt(pct(floor, 99) / pct(baseline, 99), 1)}×`,
        target: 'info',
        verdict: 'info',
      },
      ...pausePenaltyRows(pause),
      {
        metric: `fan-out to ${SUBSCRIBERS} subscribers, delivery lag p99`,
        value: `${fmt(pct(lags, 99), 1)} ms`,
        baseline: `${fmt(pct(rawLags, 99), 1)} ms bare emit`,
        ratio: `${fmt(fanRatio, 1)}×`,
        target: '≤ 3× bare emit',
        verdict: fanRatio <= 3 ? 'met' : 'missed',
      },
      {
        metric: 'cold start, 10,000 threads, to first command acked',
        value: `${fmt(coldMs, 0)} ms`,
        baseline: `${fmt(bareMs, 0)} ms bare server`,
        ratio: `${fmt(coldMs / bareMs, 1)}×`,
        target: '< 1,000 ms',
        verdict: coldMs < 1_000 ? 'met' : 'missed',
      },
    ],
  };
}
