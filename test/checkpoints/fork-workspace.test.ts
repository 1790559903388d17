import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { checkpointHandlers } from '../../src/actors/checkpoint-effects.js';
import { EffectWorker } from '../../src/actors/effect-worker.js';
import { Runtime } from '../../src/actors/runtime.js';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import type { CommandAck } from '../../src/domain/command-ack.js';
import { Store } from '../../src/persistence/store.js';
import { codexRegistry } from '../support/providers.js';
import { tempDir } from '../support/temp.js';

/**
 * A fork gets its own workspace, written from the fork point's checkpoint by an effect its
 * lane runs before its first run's: real git, real SQLite, a Baton with a data dir as the
 * server runs it. The provider's part (turns starting and ending) is played by the test.
 */
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

let commands = 0;

function baton(options: { checkpoints?: boolean } = {}) {
  const t = tempDir('baton-fork-ws-');
  cleanups.push(t.cleanup);
  const dataDir = join(t.dir, 'data');
  mkdirSync(dataDir);
  const open = () => {
    const store = Store.open(join(dataDir, 'baton.sqlite'));
    cleanups.unshift(() => store.close());
    const runtime = new Runtime({
      store,
      providers: codexRegistry(),
      logger: pino({ level: 'silent' }),
      dataDir,
      checkpoints: options.checkpoints === false ? null : new CheckpointStore({ root: join(dataDir, 'checkpoints') }),
    });
    return { store, runtime, worker: new EffectWorker(runtime, checkpointHandlers(runtime.checkpoints)) };
  };
  let b = open();
  const folder = (name: string, files: Record<string, string> = {}) => {
    const dir = join(t.dir, name);
    mkdirSync(dir, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    return dir;
  };
  const command = (c: Record<string, unknown>): Promise<CommandAck> =>
    b.runtime.dispatch({ commandId: `c_fork_ws_${++commands}`, ...c });
  const ok = async (c: Record<string, unknown>) => {
    const ack = await command(c);
    if (!ack.ok) throw new Error(`${String(c.type)} refused: ${JSON.stringify(ack.error)}`);
    return ack.result as Record<string, string>;
  };
  /** One run in which the "agent" does `work` between its turn starting and ending. */
  const run = async (threadId: string, work: () => void = () => undefined) => {
    const { runId } = await ok({ type: 'thread.message.send', threadId, text: 'go' });
    await b.worker.drain(); // the baseline is captured before the turn starts
    const start = b.store.outbox
      .list({ threadId })
      .filter((e) => e.kind === 'provider.turn.start')
      .at(-1)!;
    const ids = { threadId, runId, attemptId: start.payload.attemptId, nodeId: start.payload.rootNodeId };
    await b.runtime.ingest({ type: 'turn.started', ...ids, nativeTurnRef: null });
    work();
    await b.runtime.ingest({ type: 'turn.completed', ...ids, status: 'completed', error: null });
    await b.worker.drain();
    expect(b.store.projections.get('runs', runId!)!.status).toBe('completed');
    return runId!;
  };
  const fork = async (threadId: string, runId: string, extra: Record<string, unknown> = {}) =>
    ok({ type: 'thread.fork', sourceThreadId: threadId, source: { type: 'run', threadId, runId }, ...extra });
  const materializations = (threadId: string) =>
    b.store.outbox.list({ threadId }).filter((e) => e.kind === 'checkpoint.materialize');
  return {
    dataDir,
    folder,
    command,
    ok,
    run,
    fork,
    materializations,
    get store() {
      return b.store;
    },
    get worker() {
      return b.worker;
    },
    /** Baton stops (its worker with it) and starts again on the same data dir. */
    restart() {
      b.store.close();
      b = open();
      b.store.outbox.releaseLeases(Date.now());
    },
  };
}

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

/** A source with two runs: the fork is taken after the first. */
async function twoRuns(b: ReturnType<typeof baton>) {
  const ws = b.folder('source', { 'a.txt': 'zero\n' });
  const threadId = (await b.ok({ type: 'thread.create', cwd: ws })).threadId!;
  const first = await b.run(threadId, () => {
    writeFileSync(join(ws, 'a.txt'), 'one\n');
    writeFileSync(join(ws, 'b.txt'), 'b\n');
  });
  await b.run(threadId, () => {
    writeFileSync(join(ws, 'a.txt'), 'two\n');
    writeFileSync(join(ws, 'later.txt'), 'later\n');
  });
  return { ws, threadId, first };
}

describe("a fork's own workspace", () => {
  it("is a new folder under the data dir holding the source's files as they were at the fork point", async () => {
    const b = baton();
    const { ws, threadId, first } = await twoRuns(b);
    const forked = await b.fork(threadId, first);
    const cwd = join(b.dataDir, 'workspaces', forked.threadId!);
    expect(forked.cwd).toBe(cwd);
    expect(b.store.projections.get('threads', forked.threadId!)!.workspace.cwd).toBe(cwd);
    await b.worker.drain();
    expect(b.materializations(forked.threadId!).map((e) => e.status)).toEqual(['completed']);
    expect(readdirSync(cwd).sort()).toEqual(['a.txt', 'b.txt']);
    expect(read(cwd, 'a.txt')).toBe('one\n');
    // The source's files are as its own runs left them.
    expect(read(ws, 'a.txt')).toBe('two\n');
    expect(readdirSync(ws).sort()).toEqual(['a.txt', 'b.txt', 'later.txt']);
  });

  it("is written before the fork's first run: its baseline captures it", async () => {
    const b = baton();
    const { threadId, first } = await twoRuns(b);
    const forkId = (await b.fork(threadId, first)).threadId!;
    // Sent before the worker ran anything: the lane runs the materialization first.
    await b.run(forkId);
    const baseline = b.store.projections.list('checkpoints', forkId).find((c) => c.runOrdinal === 0);
    expect(baseline).toMatchObject({ status: 'ready', diff: { files: 2 } });
  });

  it("keeps the fork's files and the source's apart, and a rollback in the fork leaves the source's alone", async () => {
    const b = baton();
    const { ws, threadId, first } = await twoRuns(b);
    const forkId = (await b.fork(threadId, first)).threadId!;
    const cwd = join(b.dataDir, 'workspaces', forkId);
    await b.run(forkId, () => {
      writeFileSync(join(cwd, 'fork.txt'), 'fork\n');
      writeFileSync(join(cwd, 'a.txt'), 'fork edit\n');
    });
    await b.run(threadId, () => writeFileSync(join(ws, 'source.txt'), 'source\n'));
    expect(existsSync(join(ws, 'fork.txt'))).toBe(false);
    expect(existsSync(join(cwd, 'source.txt'))).toBe(false);
    expect(read(ws, 'a.txt')).toBe('two\n');

    await b.ok({ type: 'rollback.toRun', threadId: forkId, runOrdinal: 0 });
    expect(readdirSync(cwd).sort()).toEqual(['a.txt', 'b.txt']);
    expect(read(cwd, 'a.txt')).toBe('one\n');
    expect(readdirSync(ws).sort()).toEqual(['a.txt', 'b.txt', 'later.txt', 'source.txt']);
    expect(read(ws, 'a.txt')).toBe('two\n');
  });

  it('is the given cwd when the command names one, absent or empty', async () => {
    const b = baton();
    const { threadId, first } = await twoRuns(b);
    const absent = join(b.folder('parent'), 'fork-here');
    const empty = b.folder('empty');
    for (const cwd of [absent, empty]) {
      const forked = await b.fork(threadId, first, { cwd });
      expect(b.store.projections.get('threads', forked.threadId!)!.workspace.cwd).toBe(cwd);
      await b.worker.drain();
      expect(readdirSync(cwd).sort()).toEqual(['a.txt', 'b.txt']);
      expect(read(cwd, 'a.txt')).toBe('one\n');
    }
    expect(existsSync(join(b.dataDir, 'workspaces'))).toBe(false);
  });

  it('refuses a cwd that is not empty, or that overlaps the source, typed, with nothing stored', async () => {
    const b = baton();
    const { ws, threadId, first } = await twoRuns(b);
    const bad = {
      'not empty': b.folder('full', { 'x.txt': 'x' }),
      "inside the source's workspace": join(ws, 'fork'),
      relative: 'fork',
      'inside the data dir': join(b.dataDir, 'mine'),
    };
    const sequence = b.store.lastSequence();
    const threads = b.store.projections.list('threads').length;
    for (const [what, cwd] of Object.entries(bad)) {
      const ack = await b.command({
        type: 'thread.fork',
        sourceThreadId: threadId,
        source: { type: 'run', threadId, runId: first },
        cwd,
      });
      expect(ack, what).toMatchObject({ ok: false, error: { code: 'invalid_payload' } });
      expect(b.store.receipts.get(ack.commandId!), what).toBeNull();
    }
    expect(b.store.lastSequence()).toBe(sequence);
    expect(b.store.projections.list('threads')).toHaveLength(threads);
    expect(readdirSync(join(b.folder('full')))).toEqual(['x.txt']);
    expect(existsSync(join(ws, 'fork'))).toBe(false);
  });

  it('is refused (typed) when the fork point has no ready checkpoint', async () => {
    const b = baton();
    const ws = b.folder('gone');
    const threadId = (await b.ok({ type: 'thread.create', cwd: ws })).threadId!;
    // The workspace goes away during the run: its checkpoint is recorded as an error.
    const runId = await b.run(threadId, () => rmSync(ws, { recursive: true }));
    const ack = await b.command({
      type: 'thread.fork',
      sourceThreadId: threadId,
      source: { type: 'run', threadId, runId },
    });
    expect(ack).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(b.store.projections.list('threads')).toHaveLength(1);
  });

  it('is made after a crash between the fork and its materialization, and made again over a half-done one', async () => {
    const b = baton();
    const { threadId, first } = await twoRuns(b);
    // Crash 1: Baton stops before its worker ran the effect; a message waits behind it.
    const one = (await b.fork(threadId, first)).threadId!;
    await b.ok({ type: 'thread.message.send', threadId: one, text: 'first' });
    b.restart();
    await b.worker.drain();
    const cwdOne = join(b.dataDir, 'workspaces', one);
    expect(read(cwdOne, 'a.txt')).toBe('one\n');
    expect(b.materializations(one).map((e) => [e.status, e.attempts])).toEqual([['completed', 1]]);
    expect(b.store.projections.list('checkpoints', one).find((c) => c.runOrdinal === 0)).toMatchObject({
      status: 'ready',
      diff: { files: 2 },
    });

    // Crash 2: a worker claimed the effect and Baton stopped half-way, with the workspace
    // half-written beside its place, or in it (a given folder, or renamed in but not yet
    // recorded); the next Baton writes it again, whole.
    const made = [one];
    for (const halfIn of ['staging', 'place'] as const) {
      const forkId = (await b.fork(threadId, first)).threadId!;
      made.push(forkId);
      const cwd = join(b.dataDir, 'workspaces', forkId);
      b.store.outbox.claim('dead-worker', Date.now(), 60_000, 16, ['checkpoint.materialize']);
      const half = halfIn === 'place' ? cwd : join(b.dataDir, 'workspaces', `.${forkId}.materializing`);
      mkdirSync(half, { recursive: true });
      writeFileSync(join(half, 'a.txt'), 'half');
      b.restart();
      await b.worker.drain();
      expect(readdirSync(cwd).sort(), halfIn).toEqual(['a.txt', 'b.txt']);
      expect(read(cwd, 'a.txt'), halfIn).toBe('one\n');
      expect(b.materializations(forkId).map((e) => [e.status, e.attempts])).toEqual([['completed', 2]]);
    }
    expect(readdirSync(join(b.dataDir, 'workspaces')).sort()).toEqual(made.sort());
  });

  it('that cannot be written is not made at all, its effect failed with the reason', async () => {
    const b = baton();
    const { threadId, first } = await twoRuns(b);
    const forkId = (await b.fork(threadId, first)).threadId!;
    // The source's captured files are lost before the worker gets to the fork's: git fails half-way.
    for (const repo of readdirSync(join(b.dataDir, 'checkpoints')))
      rmSync(join(b.dataDir, 'checkpoints', repo, 'objects'), { recursive: true });
    await b.worker.drain();
    const [effect] = b.materializations(forkId);
    expect(effect).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/read-tree/) });
    expect(existsSync(join(b.dataDir, 'workspaces', forkId))).toBe(false);
    expect(readdirSync(join(b.dataDir, 'workspaces'))).toEqual([]);
  });

  it('in a Baton that keeps no checkpoints: the fork works in its source workspace, and a cwd is refused', async () => {
    const b = baton({ checkpoints: false });
    const ws = b.folder('source');
    const threadId = (await b.ok({ type: 'thread.create', cwd: ws })).threadId!;
    const runId = await b.run(threadId);
    const forked = await b.fork(threadId, runId);
    expect(forked.cwd).toBe(ws);
    expect(b.materializations(forked.threadId!)).toEqual([]);
    const ack = await b.command({
      type: 'thread.fork',
      sourceThreadId: threadId,
      source: { type: 'run', threadId, runId },
      cwd: b.folder('elsewhere'),
    });
    expect(ack).toMatchObject({ ok: false, error: { code: 'unsupported' } });
  });
});
