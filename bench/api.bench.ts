import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { Server } from 'socket.io';
import { io, type Socket } from 'socket.io-client';
import { BatonClient, type CommandAck } from '../src/client/baton-client.js';
import { loadConfig } from '../src/config.js';
import { Runtime } from '../src/actors/runtime.js';
import { SequentialIds } from '../src/domain/sources.js';
import { Store } from '../src/persistence/store.js';
import { startBaton } from '../src/server/baton-app.js';
import { tempDir } from '../test/support/temp.js';
import { fmt, type BenchSection } from './measure.js';
import { codexRegistry } from '../test/support/providers.js';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
/** Paces the workload (a fixed send rate); never used to wait for a result. */
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

function resultOf(ack: CommandAck): Record<string, unknown> {
  if (!ack.ok) throw new Error(`${ack.error.code}: ${ack.error.message}`);
  return ack.result;
}

/** A bare Socket.IO echo server: the baseline every API figure stands beside. */
async function echoServer(): Promise<{ url: string; io: Server; close: () => Promise<void> }> {
  const http = createServer();
  const server = new Server(http);
  server.on('connection', (s) => s.on('echo', (payload: unknown, ack: (x: unknown) => void) => ack(payload)));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { url, io: server, close: () => new Promise((r) => server.close(() => r())) };
}

const connect = (url: string, token?: string): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = io(url, { transports: ['websocket'], ...(token ? { auth: { token } } : {}) });
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });

/** Sends at a fixed rate (not as fast as possible) and records each round trip. */
async function atRate(count: number, perSecond: number, send: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: Promise<number>[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    out.push(send(i).then(() => performance.now() - start));
    await tick(1_000 / perSecond);
  }
  return Promise.all(out);
}

/** Command-to-ack latency, fan-out lag to 100 subscribers, and cold start with 10,000 threads. */
export async function benchApi(): Promise<BenchSection> {
  const data = tempDir('baton-bench-api-');
  // The threads' workspace: Baton refuses a cwd inside its own data dir.
  const workspace = tempDir('baton-bench-ws-');
  const echo = await echoServer();
  try {
    const app = await startBaton(loadConfig({}, { dataDir: data.dir, port: 0, token: 'bench-token-0123456789', model: 'scripted' }), pino({ level: 'silent' }));
    const client = await BatonClient.connect(app.url, app.token);
    const threadId = String(resultOf(await client.command('thread.create', { cwd: workspace.dir })).threadId);

    // 1. Command to ack, 1,000 commands at 200/s.
    const N = 1_000;
    const RATE = 200;
    const echoSocket = await connect(echo.url);
    const baseline = await atRate(N, RATE, (i) => echoSocket.emitWithAck('echo', { commandId: `c${i}`, type: 'thread.settings.update', threadId, title: `t${i}` }));
    const latency = await atRate(N, RATE, (i) => client.command('thread.settings.update', { threadId: threadId as never, title: `title ${i}` }));

    // 2. A streaming run fanned out to 100 subscribers: lag from ingest to delivery.
    const SUBS = 100;
    const DELTAS = 300;
    const subscribers = await Promise.all(Array.from({ length: SUBS }, () => BatonClient.connect(app.url, app.token)));
    const sent = new Map<number, number>();
    const lags: number[] = [];
    let received = 0;
    let allReceived!: () => void;
    const done = new Promise<void>((resolve) => (allReceived = resolve));
    await Promise.all(subscribers.map((s) => s.subscribe({ stream: 'thread', threadId: threadId as never }, (e) => {
      if (e.type !== 'message.delta') return;
      const i = Number((e.payload as { delta: string }).delta);
      lags.push(performance.now() - sent.get(i)!);
      if (++received === SUBS * DELTAS) allReceived();
    })));
    const runId = String(resultOf(await client.command('thread.message.send', { threadId: threadId as never, text: 'stream' })).runId);
    const start = app.runtime.store.outbox.list({ threadId }).find((e) => e.kind === 'provider.turn.start')!;
    const rootNodeId = String(start.payload.rootNodeId);
    for (let i = 0; i < DELTAS; i++) {
      sent.set(i, performance.now());
      void app.runtime.ingest({ type: 'message.delta', threadId, runId, nodeId: rootNodeId, messageId: 'msg_bench', delta: String(i) });
      await tick(5);
    }
    await done;
    subscribers.forEach((s) => s.close());

    const raw = await Promise.all(Array.from({ length: SUBS }, () => connect(echo.url)));
    const rawSent = new Map<number, number>();
    const rawLags: number[] = [];
    let rawReceived = 0;
    const rawDone = new Promise<void>((resolve) => raw.forEach((s) => s.on('delta', (i: number) => {
      rawLags.push(performance.now() - rawSent.get(i)!);
      if (++rawReceived === SUBS * DELTAS) resolve();
    })));
    for (let i = 0; i < DELTAS; i++) {
      rawSent.set(i, performance.now());
      echo.io.emit('delta', i);
      await tick(5);
    }
    await rawDone;
    raw.forEach((s) => s.close());
    echoSocket.close();
    client.close();
    await app.stop();

    // 3. Cold start with 10,000 threads on disk: until the first command is acked.
    const cold = tempDir('baton-bench-cold-');
    try {
      const seed = new Runtime({ store: Store.open(`${cold.dir}/baton.sqlite`), providers: codexRegistry(), ids: new SequentialIds('seed'), maxLiveThreads: 100 });
      await Promise.all(Array.from({ length: 10_000 }, (_, i) => seed.dispatch({ commandId: `seed_${i}`, type: 'thread.create', threadId: `thr_${i}`, cwd: workspace.dir })));
      seed.store.close();
      const t0 = performance.now();
      const coldApp = await startBaton(loadConfig({}, { dataDir: cold.dir, port: 0, token: 'bench-token-0123456789', model: 'scripted' }), pino({ level: 'silent' }));
      const coldClient = await BatonClient.connect(coldApp.url, coldApp.token);
      const ack = await coldClient.command('thread.settings.update', { threadId: 'thr_4321' as never, title: 'first command' });
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

      const p99 = pct(latency, 99);
      return {
        title: 'Socket.IO API (issue 6)',
        notes: [
          `Client and server in one process on loopback. Latency: ${fmt(N)} \`thread.settings.update\` commands (each validated, run in its thread's mailbox and committed before the ack) at ${RATE}/s, beside a bare Socket.IO echo of the same payload at the same rate.`,
          `Fan-out: ${DELTAS} provider deltas at 200/s into one thread watched by ${SUBS} subscribed clients; lag from ingest to each client's listener, beside a bare \`io.emit\` to ${SUBS} clients at the same rate.`,
          'Cold start: a data dir holding 10,000 threads; from starting Baton (store, runtime, recovery scan, Codex provider, offline model, server) to the first command acked, beside a bare Socket.IO server start and first echo.',
        ],
        rows: [
          { metric: 'command-to-ack latency p50', value: `${fmt(pct(latency, 50), 2)} ms`, baseline: `${fmt(pct(baseline, 50), 2)} ms echo`, ratio: `${fmt(pct(latency, 50) / pct(baseline, 50), 1)}×`, target: 'info', verdict: 'info' },
          { metric: 'command-to-ack latency p99', value: `${fmt(p99, 2)} ms`, baseline: `${fmt(pct(baseline, 99), 2)} ms echo`, ratio: `${fmt(p99 / pct(baseline, 99), 1)}×`, target: '< 5 ms', verdict: p99 < 5 ? 'met' : 'missed' },
          { metric: `fan-out to ${SUBS} subscribers, delivery lag p99`, value: `${fmt(pct(lags, 99), 1)} ms`, baseline: `${fmt(pct(rawLags, 99), 1)} ms bare emit`, ratio: `${fmt(pct(lags, 99) / pct(rawLags, 99), 1)}×`, target: 'info', verdict: 'info' },
          { metric: 'cold start, 10,000 threads, to first command acked', value: `${fmt(coldMs, 0)} ms`, baseline: `${fmt(bareMs, 0)} ms bare server`, ratio: `${fmt(coldMs / bareMs, 1)}×`, target: '< 1,000 ms', verdict: coldMs < 1_000 ? 'met' : 'missed' },
        ],
      };
    } finally {
      cold.cleanup();
    }
  } finally {
    await echo.close();
    data.cleanup();
    workspace.cleanup();
  }
}
