import { join } from 'node:path';
import { Runtime } from '../src/actors/runtime.js';
import { SequentialIds } from '../src/domain/sources.js';
import { Store } from '../src/persistence/store.js';
import { tempDir } from '../test/support/temp.js';
import { threadWithActiveRun, type ActiveRun } from './active-run.js';
import { fmt, type BenchSection } from './measure.js';
import { codexRegistry } from '../test/support/providers.js';

const seconds = (from: bigint): number => Number(process.hrtime.bigint() - from) / 1e9;

/**
 * Issue 12, streaming at constant cost: one message grows to 20,000 deltas (120,000
 * characters), each delta persisted before the next is sent; the rate of its last 1,000
 * deltas is set beside the rate of its first 1,000 in the same run. Then one thread fed
 * in bursts, as a provider's stdout delivers them: the deltas of a burst share a step.
 */
export async function benchStreaming(): Promise<BenchSection> {
  const { dir, cleanup } = tempDir('baton-bench-stream-');
  try {
    const store = Store.open(join(dir, 'stream.sqlite'));
    const runtime = new Runtime({ store, providers: codexRegistry(), ids: new SequentialIds('s') });
    const delta = (threadId: string, run: ActiveRun, messageId: string) =>
      runtime.ingest({
        type: 'message.delta',
        threadId,
        runId: run.runId,
        nodeId: run.rootNodeId,
        messageId,
        delta: 'token ',
      });

    // Warm-up on another thread, so the first 1,000 of the measured message are not cold.
    const warm = await threadWithActiveRun(runtime, 'thr_warm');
    for (let i = 0; i < 2_000; i++) await delta('thr_warm', warm, 'msg_warm');

    // Each round streams a new message on a new thread; the best round of each window is
    // kept, the one least disturbed by whatever else the shared machine is doing.
    const total = 20_000;
    const window = 1_000;
    const rounds = 3;
    let firstRate = 0;
    let lastRate = 0;
    for (let round = 0; round < rounds; round++) {
      const run = await threadWithActiveRun(runtime, `thr_long_${round}`);
      // SQLite checkpoints its WAL every 1,000 pages (about every 1,500 deltas here), and a
      // checkpoint costs as much as several hundred deltas: each window starts on an empty
      // WAL, so both carry the same checkpoints and differ only by the message's length.
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      let windowStart = process.hrtime.bigint();
      for (let i = 0; i < total; i++) {
        if (i === total - window) {
          store.db.pragma('wal_checkpoint(TRUNCATE)');
          windowStart = process.hrtime.bigint();
        }
        await delta(`thr_long_${round}`, run, `msg_long_${round}`);
        if (i === window - 1) firstRate = Math.max(firstRate, window / seconds(windowStart));
      }
      lastRate = Math.max(lastRate, window / seconds(windowStart));
    }
    const chars = store.projections.get('messages', 'msg_long_0')?.text.length ?? 0;

    // One thread fed in bursts: each burst's deltas are ingested together and awaited together.
    const burst = 100;
    const bursts = 200;
    const fed = await threadWithActiveRun(runtime, 'thr_burst');
    const burstRun = async (messageId: string): Promise<number> => {
      const start = process.hrtime.bigint();
      for (let b = 0; b < bursts; b++)
        await Promise.all(Array.from({ length: burst }, () => delta('thr_burst', fed, messageId)));
      return (burst * bursts) / seconds(start);
    };
    await burstRun('msg_burst_warm');
    const burstRate = await burstRun('msg_burst');
    // Baseline: the same deltas, each persisted before the next (the message's first 1,000 above).
    store.close();

    const ratio = lastRate / firstRate;
    return {
      title: 'Streaming at constant cost (issue 12)',
      notes: [
        `One message streamed by \`message.delta\` events of 6 characters through \`Runtime.ingest\`, each persisted before the next is sent, to ${fmt(total)} deltas (${fmt(chars)} characters); best of ${rounds} messages for each window, each window started on an empty WAL (\`wal_checkpoint(TRUNCATE)\`) so both carry the same WAL checkpoints. Baseline: the same messages' first ${fmt(window)} deltas, same run. Each delta appends a chunk to its message and turn item rows (\`proj_text_chunks\`) instead of rewriting them.`,
        `Bursts: one thread, ${fmt(bursts)} bursts of ${fmt(burst)} deltas ingested together (one step and one commit per burst; every delta stays one event in the log), after a warm-up message of the same size. Baseline: one delta persisted per step (first ${fmt(window)} above).`,
      ],
      rows: [
        {
          metric: `deltas/s, deltas ${fmt(total - window + 1)}–${fmt(total)} of one message`,
          value: fmt(lastRate),
          baseline: `${fmt(firstRate)} deltas/s for its first ${fmt(window)}`,
          ratio: `${fmt(ratio * 100, 1)}%`,
          target: 'within 10% of baseline',
          verdict: Math.abs(ratio - 1) <= 0.1 ? 'met' : 'missed',
        },
        {
          metric: `deltas/s, one thread, bursts of ${burst}`,
          value: fmt(burstRate),
          baseline: `${fmt(firstRate)} deltas/s one per step`,
          ratio: `${fmt(burstRate / firstRate, 2)}×`,
          target: '≥ 10,000 deltas/s',
          verdict: burstRate >= 10_000 ? 'met' : 'missed',
        },
      ],
    };
  } finally {
    cleanup();
  }
}
