import { join } from 'node:path';
import { Runtime } from '../src/actors/runtime.js';
import { SequentialIds } from '../src/domain/sources.js';
import { Store } from '../src/persistence/store.js';
import { typicalUnit } from '../test/support/units.js';
import { tempDir } from '../test/support/temp.js';
import { threadWithActiveRun } from './active-run.js';
import { canCollectGarbage, collectGarbage, fmt, opsPerSecond, type BenchSection } from './measure.js';
import { codexRegistry } from '../test/support/providers.js';

const heap = () => {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

/**
 * The actor runtime with persistence: provider events through a supervisor (each a step
 * committed before the next), thread hydration and the memory an idle hydrated thread costs.
 */
export async function benchRuntime(): Promise<BenchSection> {
  const { dir, cleanup } = tempDir('baton-bench-rt-');
  try {
    // Baseline: the same store, a typical unit committed directly (no actors), sequentially.
    const baseStore = Store.open(join(dir, 'base.sqlite'));
    const baseRate = opsPerSecond(5_000, (i) => baseStore.commit(typicalUnit('thr_base', i + 10_000)));
    baseStore.close();

    const store = Store.open(join(dir, 'rt.sqlite'));
    const runtime = new Runtime({ store, providers: codexRegistry(), ids: new SequentialIds('b') });
    const one = await threadWithActiveRun(runtime, 'thr_one');
    const delta = (threadId: string, run: { runId: string; rootNodeId: string }) =>
      runtime.ingest({
        type: 'message.delta',
        threadId,
        runId: run.runId,
        nodeId: run.rootNodeId,
        messageId: `msg_${threadId}`,
        delta: 'token ',
      });
    for (let i = 0; i < 500; i++) await delta('thr_one', one);
    const N = 5_000;
    let start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await delta('thr_one', one);
    const oneThreadRate = N / (Number(process.hrtime.bigint() - start) / 1e9);

    const threads = 64;
    const runs = await Promise.all(
      Array.from({ length: threads }, (_, t) => threadWithActiveRun(runtime, `thr_par_${t}`)),
    );
    const perThread = 200;
    start = process.hrtime.bigint();
    await Promise.all(
      runs.map(async (run, t) => {
        for (let i = 0; i < perThread; i++) await delta(`thr_par_${t}`, run);
      }),
    );
    const parallelRate = (threads * perThread) / (Number(process.hrtime.bigint() - start) / 1e9);

    // Hydration and memory: 2,000 idle threads on disk, hydrated by a fresh runtime.
    const H = 2_000;
    await Promise.all(
      Array.from({ length: H }, (_, i) =>
        runtime.dispatch({ commandId: `h_${i}`, type: 'thread.create', threadId: `thr_h_${i}`, cwd: '/tmp' }),
      ),
    );
    const fresh = new Runtime({
      store,
      providers: codexRegistry(),
      ids: new SequentialIds('f'),
      maxLiveThreads: 10 * H,
    });
    const rowsBefore = heap();
    const rows = Array.from({ length: H }, (_, i) => store.entities.get(`thr_h_${i}`));
    const rowBytes = (heap() - rowsBefore) / H;
    start = process.hrtime.bigint();
    for (let i = 0; i < H; i++) store.entities.get(`thr_h_${i}`);
    const rowReadUs = Number(process.hrtime.bigint() - start) / 1e3 / H;
    rows.length = 0;

    const before = heap();
    start = process.hrtime.bigint();
    for (let i = 0; i < H; i++) fresh.thread(`thr_h_${i}`).hydrate();
    const hydrateUs = Number(process.hrtime.bigint() - start) / 1e3 / H;
    const perThreadBytes = (heap() - before) / H;
    store.close();

    return {
      title: 'Actor runtime (issue 3)',
      notes: [
        'Provider events are `message.delta` events through `Runtime.ingest`: validated, routed in the thread mailbox, projected, and committed before the next one starts.',
        `Baseline: a typical unit (1 event + 1 snapshot + 1 projection row) committed straight to the same kind of store, sequentially: ${fmt(baseRate)} commits/s.`,
        `Hydration and memory: ${fmt(H)} idle threads on disk, hydrated one by one by a fresh runtime; memory is the heap growth after GC${canCollectGarbage() ? '' : ' (run without --expose-gc: figures include garbage)'}.`,
      ],
      rows: [
        {
          metric: 'provider events/s, one thread, persisted per event',
          value: fmt(oneThreadRate),
          baseline: `${fmt(baseRate)} direct commits/s`,
          ratio: `${fmt(oneThreadRate / baseRate, 2)}×`,
          target: 'info',
          verdict: 'info',
        },
        {
          metric: `provider events/s, ${threads} threads at once (group commit)`,
          value: fmt(parallelRate),
          baseline: `${fmt(baseRate)} direct commits/s`,
          ratio: `${fmt(parallelRate / baseRate, 2)}×`,
          target: 'info',
          verdict: 'info',
        },
        {
          metric: 'hydration time per idle thread',
          value: `${fmt(hydrateUs, 1)} µs`,
          baseline: `${fmt(rowReadUs, 1)} µs to read its row`,
          ratio: `${fmt(hydrateUs / rowReadUs, 1)}×`,
          target: 'info',
          verdict: 'info',
        },
        {
          metric: 'memory per hydrated idle thread',
          value: `${fmt(perThreadBytes / 1024, 1)} KB`,
          baseline: `${fmt(rowBytes / 1024, 1)} KB for its parsed row`,
          ratio: `${fmt(perThreadBytes / Math.max(rowBytes, 1), 1)}×`,
          target: '< 20 KB',
          verdict: perThreadBytes < 20 * 1024 ? 'met' : 'missed',
        },
      ],
    };
  } finally {
    cleanup();
  }
}
