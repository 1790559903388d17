import { Worker } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../src/persistence/store.js';
import { validateUnit, type CommitUnit, type ValidUnit } from '../src/persistence/commit-unit.js';
import { timeOrderedIds } from '../src/domain/sources.js';
import { typicalUnit } from '../test/support/units.js';
import { collectGarbage, fmt, pct } from './measure.js';
import { discardFiles, discardStore } from './discard-store.js';
import { sqliteFloor } from './store-floor.js';
import type { FlatBatch, WorkerReply } from './writer-thread-worker.js';

/**
 * `npm run bench:writer-thread`: a design probe for issue 12's group-commit target, not a
 * path Baton has. Would a writer thread reach 60% of the SQLite floor? The main thread
 * validates each typical unit as the store does and flattens its rows into plain values;
 * a worker binds them by the store's multi-row INSERTs and commits each group of 1,000
 * units, two groups in flight at most, so validation overlaps SQLite's work on the other
 * core. Beside it, in turns, the store's serial group commit (`Store.commitMany`, as the
 * store bench runs it) and the SQLite floor. Prints; writes no file.
 *
 * The probe's producer runs ahead of its commits. The runtime's do not: a thread's step
 * awaits its own commit before the thread's next step, so while a group is written every
 * thread with work waits on it, and there is no next group to validate meanwhile.
 */
const batch = 1_000;
const batches = 40;
const rounds = 7;
const dir = mkdtempSync(join(tmpdir(), 'baton-writer-thread-'));
const ids = timeOrderedIds();
let file = 0;
const nextPath = () => join(dir, `probe-${file++}.sqlite`);

/** `batches + 2` groups of typical units, the last two to warm up with. */
function groups(): CommitUnit[][] {
  let n = 0;
  return Array.from({ length: batches + 2 }, () =>
    Array.from({ length: batch }, () => typicalUnit('thr_group', ++n, { ids })),
  );
}

function serial(): number {
  const store = Store.open(nextPath());
  const prepared = groups();
  for (const warmUp of prepared.slice(batches)) store.commitMany(warmUp);
  collectGarbage();
  const start = performance.now();
  for (const units of prepared.slice(0, batches)) store.commitMany(units);
  const ms = performance.now() - start;
  discardStore(store);
  return (batch * batches * 1_000) / ms;
}

/** A group's rows as plain values, in the column order of the store's row shapes; sequences follow `last`. */
function flatten(units: readonly ValidUnit[], last: number, at: number): FlatBatch {
  const flat: FlatBatch = { events: [], entities: [], projections: [] };
  let sequence = last;
  for (const unit of units) {
    for (const e of unit.events)
      flat.events.push(++sequence, e.eventId, e.commandId, e.causationId, e.threadId, e.type, e.payloadJson, at);
    for (const s of unit.snapshots)
      flat.entities.push(s.entityId, s.kind, s.threadId, s.machineId, s.machineVersion, s.snapshotJson, sequence, at);
    for (const p of unit.projections)
      if (p.op === 'upsert') flat.projections.push(p.id, p.threadId, p.ord, p.dataJson, sequence);
  }
  return flat;
}

async function writerThread(): Promise<number> {
  const path = nextPath();
  Store.open(path).close(); // the schema
  const worker = new Worker(new URL('./ts-worker.mjs', import.meta.url), {
    workerData: { module: new URL('./writer-thread-worker.ts', import.meta.url).href, path },
  });
  let inFlight = 0;
  let wake = (): void => undefined;
  const replies: WorkerReply[] = [];
  // A probe, not a service: a failed worker ends the run instead of leaving it waiting.
  worker.on('error', (error) => {
    console.error('the writer thread failed:', error);
    process.exit(1);
  });
  worker.on('message', (reply: WorkerReply) => {
    replies.push(reply);
    if (reply !== 'closed') inFlight--;
    wake();
  });
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      if (done()) return resolve();
      wake = () => done() && resolve();
    });
  let last = 0;
  const send = async (units: CommitUnit[], index: number) => {
    const flat = flatten(units.map(validateUnit), last, Date.now());
    last += units.length;
    await until(() => inFlight < 2);
    inFlight++;
    worker.postMessage({ index, batch: flat });
  };
  const prepared = groups();
  for (const [i, warmUp] of prepared.slice(batches).entries()) await send(warmUp, -1 - i);
  await until(() => inFlight === 0);
  collectGarbage();
  const start = performance.now();
  for (const [i, units] of prepared.slice(0, batches).entries()) await send(units, i);
  await until(() => inFlight === 0);
  const ms = performance.now() - start;
  worker.postMessage('close');
  await until(() => replies.includes('closed'));
  await worker.terminate();
  discardFiles(path);
  return (batch * batches * 1_000) / ms;
}

const runs = { floor: [] as number[], serial: [] as number[], writer: [] as number[] };
try {
  for (let r = 0; r < rounds; r++) {
    runs.floor.push(sqliteFloor(nextPath(), batch * batches, batch, 1));
    runs.serial.push(serial());
    runs.writer.push(await writerThread());
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const best = (xs: number[]) => Math.max(...xs);
const floor = best(runs.floor);
const perRound = (side: number[]) => side.map((rate, r) => (rate / runs.floor[r]!) * 100);
const spread = (xs: number[]) =>
  `${fmt(Math.min(...xs), 1)}-${fmt(Math.max(...xs), 1)}% (median ${fmt(pct(xs, 50), 1)}%)`;
console.log(`SQLite floor, best of ${rounds}: ${fmt(floor)} events/s`);
for (const side of ['serial', 'writer'] as const) {
  const label = side === 'serial' ? 'serial group commit (Store.commitMany)' : 'writer thread';
  console.log(
    `${label}: best ${fmt(best(runs[side]))} events/s, ${fmt((best(runs[side]) / floor) * 100, 1)}% of the floor; per round ${spread(perRound(runs[side]))}`,
  );
}
const ahead = runs.writer.map((rate, r) => rate / runs.serial[r]! - 1);
console.log(
  `writer thread against serial, round by round: ${ahead.map((x) => `${x >= 0 ? '+' : ''}${fmt(x * 100)}%`).join(', ')}`,
);
