import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { ManualClock } from '../../src/domain/sources.js';
import type { Store } from '../../src/persistence/store.js';
import { createHarness, useRuntime } from '../support/runtime.js';
import { tempDir } from '../support/temp.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/** A workspace of `files` new empty files, 500 per folder (made by one shell: far quicker than from here). */
function bigWorkspace(files: number): string {
  const ws = tempDir('baton-big-ws-');
  cleanups.push(ws.cleanup);
  const script = `cd "$1" && awk -v n="$2" 'BEGIN { for (i = 0; i < n / 500; i++) print "d" i }' | xargs mkdir
    awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) print "d" int(i / 500) "/f" i ".txt" }' | xargs touch`;
  execFileSync('sh', ['-c', `set -e\n${script}`, 'sh', ws.dir, String(files)]);
  return ws.dir;
}

function checkpointRoot(): string {
  const data = tempDir('baton-big-data-');
  cleanups.push(data.cleanup);
  return join(data.dir, 'checkpoints');
}

/** A checkpoint root for the whole file (a harness option is fixed when the file loads). */
function checkpointRootForFile(): string {
  const data = tempDir('baton-big-data-');
  afterAll(data.cleanup);
  return join(data.dir, 'checkpoints');
}

describe('checkpoint work keeps Baton responsive', () => {
  it('capturing 100,000 new files never blocks the event loop for long', async () => {
    const ws = bigWorkspace(100_000);
    const store = new CheckpointStore({ root: checkpointRoot() });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const capture = await store.capture(ws, 'thr_big/one', null);
    delay.disable();
    expect(capture.diff.files).toBe(100_000);
    // A behaviour bound with a wide margin (the machine is shared): not a benchmark.
    const maxMs = delay.max / 1e6;
    expect(maxMs, `longest event-loop stall ${maxMs.toFixed(0)} ms`).toBeLessThan(500);
  }, 120_000);

  it('a git that overruns its time limit is killed: the capture fails with a timeout, leaves no lock or half-made repository, and the next capture works', async () => {
    const ws = bigWorkspace(5_000);
    const root = checkpointRoot();
    const hurried = new CheckpointStore({ root, gitTimeoutMs: 1 });
    const patient = new CheckpointStore({ root });
    // On a new shadow repository (its git init is what overruns), then on a made one.
    await expect(hurried.capture(ws, 'thr_big/first', null)).rejects.toThrow(/timed out after 1 ms and was killed/);
    const first = await patient.capture(ws, 'thr_big/baseline', null);
    expect(first.diff.files).toBe(5_000);
    writeFileSync(join(ws, 'd0', 'f0.txt'), 'changed\n');
    await expect(hurried.capture(ws, 'thr_big/second', first.commit)).rejects.toThrow(
      /timed out after 1 ms and was killed/,
    );
    const [gitDir, ...others] = readdirSync(root);
    expect(others).toEqual([]);
    expect(existsSync(join(root, gitDir!, 'index.lock'))).toBe(false);
    expect((await patient.capture(ws, 'thr_big/after', first.commit)).diff).toMatchObject({
      files: 1,
      paths: ['d0/f0.txt'],
    });
  }, 120_000);
});

describe('a checkpoint whose git overruns', () => {
  const open = useRuntime({ checkpoints: new CheckpointStore({ root: checkpointRootForFile(), gitTimeoutMs: 1 }) });

  it('is recorded error with a timeout reason, and the run still ends', async () => {
    const h = open();
    const ws = bigWorkspace(2_000);
    const threadId = await h.thread({ cwd: ws });
    const sent = await h.command({ type: 'thread.message.send', threadId, text: 'go' });
    expect(sent).toMatchObject({ ok: true });
    await h.worker.drain();
    const t = h.turn(threadId);
    await h.feed({
      type: 'turn.started',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      nativeTurnRef: null,
    });
    await h.feed({
      type: 'turn.completed',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      status: 'completed',
      error: null,
    });
    await h.until(() => h.store.projections.get('runs', t.runId)?.status === 'completed');
    const checkpoints = h.store.projections.list('checkpoints', threadId);
    expect(checkpoints.map((c) => [c.runOrdinal, c.status])).toEqual([
      [0, 'error'],
      [1, 'error'],
    ]);
    for (const c of checkpoints) expect(c.reason).toMatch(/^capture failed: .*timed out after 1 ms and was killed$/);
  }, 120_000);
});

describe('a rollback whose git overruns', () => {
  it('is refused with a typed timeout, never internal, and changes nothing', async () => {
    const root = checkpointRoot();
    const ws = bigWorkspace(2_000);
    const dbDir = tempDir('baton-rollback-db-');
    const db = join(dbDir.dir, 'baton.sqlite');
    const stores: Store[] = [];
    cleanups.push(() => stores.forEach((s) => s.close()), dbDir.cleanup);
    const patient = createHarness({ checkpoints: new CheckpointStore({ root }) }, db, 'p', new ManualClock(), (s) =>
      stores.push(s),
    );
    const threadId = await patient.thread({ cwd: ws });
    for (const text of ['one', 'two']) {
      await patient.command({ type: 'thread.message.send', threadId, text });
      await patient.worker.drain();
      const t = patient.turn(threadId);
      await patient.feed({
        type: 'turn.started',
        threadId,
        runId: t.runId,
        attemptId: t.attemptId,
        nodeId: t.rootNodeId,
        nativeTurnRef: null,
      });
      writeFileSync(join(ws, `${text}.txt`), `${text}\n`);
      await patient.feed({
        type: 'turn.completed',
        threadId,
        runId: t.runId,
        attemptId: t.attemptId,
        nodeId: t.rootNodeId,
        status: 'completed',
        error: null,
      });
      await patient.until(() => patient.store.projections.get('runs', t.runId)?.status === 'completed');
    }
    stores.forEach((s) => s.close());
    stores.length = 0;
    // The same Baton data, now with git allowed 1 ms.
    const hurried = createHarness(
      { checkpoints: new CheckpointStore({ root, gitTimeoutMs: 1 }) },
      db,
      'h',
      new ManualClock(),
      (s) => stores.push(s),
    );
    const before = hurried.store.lastSequence();
    const ack = (await hurried.runtime.dispatch({
      commandId: 'cmd_rollback_hurried',
      type: 'rollback.toRun',
      threadId,
      runOrdinal: 1,
    })) as { ok: boolean; error?: { code: string; message: string } };
    expect(ack).toMatchObject({
      ok: false,
      error: { code: 'timeout', message: expect.stringMatching(/timed out after 1 ms and was killed/) },
    });
    expect(hurried.store.lastSequence()).toBe(before);
    expect(existsSync(join(ws, 'two.txt'))).toBe(true);
  }, 120_000);
});
