import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
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
 * `thread.merge_back { files: true }` at the runtime: the fork's file changes since the fork
 * point applied three-way to its parent's workspace, as a checkpointed step a rollback
 * undoes. Real git, real SQLite; the provider's part (turns starting and ending) is played
 * by the test.
 */
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

let commands = 0;

function baton(options: { checkpoints?: boolean; dataDir?: boolean } = {}) {
  const t = tempDir('baton-merge-files-');
  cleanups.push(t.cleanup);
  const dataDir = join(t.dir, 'data');
  mkdirSync(dataDir);
  const store = Store.open(join(dataDir, 'baton.sqlite'));
  cleanups.unshift(() => store.close());
  const runtime = new Runtime({
    store,
    providers: codexRegistry(),
    logger: pino({ level: 'silent' }),
    dataDir: options.dataDir === false ? null : dataDir,
    checkpoints: options.checkpoints === false ? null : new CheckpointStore({ root: join(dataDir, 'checkpoints') }),
  });
  const worker = new EffectWorker(runtime, checkpointHandlers(runtime.checkpoints));
  const command = (c: Record<string, unknown>): Promise<CommandAck> =>
    runtime.dispatch({ commandId: `c_merge_files_${++commands}`, ...c });
  const ok = async (c: Record<string, unknown>) => {
    const ack = await command(c);
    if (!ack.ok) throw new Error(`${String(c.type)} refused: ${JSON.stringify(ack.error)}`);
    return ack.result as Record<string, unknown>;
  };
  /** Starts a run and its turn; `end` has the "agent" do `work` and ends the turn. */
  const start = async (threadId: string) => {
    const { runId } = (await ok({ type: 'thread.message.send', threadId, text: 'go' })) as { runId: string };
    await worker.drain(); // the baseline is captured before the turn starts
    const turn = store.outbox
      .list({ threadId })
      .filter((e) => e.kind === 'provider.turn.start')
      .at(-1)!;
    const ids = { threadId, runId, attemptId: turn.payload.attemptId, nodeId: turn.payload.rootNodeId };
    await runtime.ingest({ type: 'turn.started', ...ids, nativeTurnRef: null });
    return async (work: () => void = () => undefined) => {
      work();
      await runtime.ingest({ type: 'turn.completed', ...ids, status: 'completed', error: null });
      await worker.drain();
      expect(store.projections.get('runs', runId)!.status).toBe('completed');
      return runId;
    };
  };
  const run = async (threadId: string, work?: () => void) => (await start(threadId))(work);
  return { t, dataDir, store, command, ok, start, run };
}

const lines = (...changes: [number, string][]) => {
  const l = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
  for (const [i, text] of changes) l[i - 1] = text;
  return `${l.join('\n')}\n`;
};
const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

/** Names, kinds and bytes of everything below `dir`. */
function fingerprint(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      h.update(`${p}:${st.mode}\n`);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

/**
 * A source whose run 1 writes a.txt and b.txt, forked there; the fork's run writes fork.txt
 * and changes line 8 of a.txt (`forkLine`); the source's run 2 changes line 2 (`sourceLine`).
 */
async function sourceAndFork(b: ReturnType<typeof baton>, sourceLine = 2, forkLine = 8) {
  const ws = join(b.t.dir, 'source');
  mkdirSync(ws);
  const threadId = (await b.ok({ type: 'thread.create', cwd: ws })).threadId as string;
  const first = await b.run(threadId, () => {
    writeFileSync(join(ws, 'a.txt'), lines());
    writeFileSync(join(ws, 'b.txt'), 'b\n');
  });
  const forked = await b.ok({
    type: 'thread.fork',
    sourceThreadId: threadId,
    source: { type: 'run', threadId, runId: first },
  });
  const forkId = forked.threadId as string;
  const forkWs = forked.cwd as string;
  await b.run(forkId, () => {
    writeFileSync(join(forkWs, 'fork.txt'), 'from the fork\n');
    writeFileSync(join(forkWs, 'a.txt'), lines([forkLine, 'fork']));
  });
  await b.run(threadId, () => writeFileSync(join(ws, 'a.txt'), lines([sourceLine, 'source'])));
  return { ws, threadId, forkId, forkWs };
}

const mergeFiles = (threadId: string, fromThreadId: string) => ({
  type: 'thread.merge_back',
  threadId,
  fromThreadId,
  files: true,
});

describe('thread.merge_back { files: true }', () => {
  it("applies the fork's changes to the source's workspace, merging a file both changed, as one checkpointed step", async () => {
    const b = baton();
    const { ws, threadId, forkId } = await sourceAndFork(b);
    const ack = await b.command(mergeFiles(threadId, forkId));
    expect(ack).toMatchObject({ ok: true, result: { fromThreadId: forkId, throughRunOrdinal: 1 } });
    if (!ack.ok) return;
    const result = ack.result as { changedPaths: string[]; checkpointId: string; transferId: string };
    expect(result.changedPaths.sort()).toEqual(['a.txt', 'fork.txt']);
    expect(read(ws, 'fork.txt')).toBe('from the fork\n');
    expect(read(ws, 'a.txt')).toBe(lines([2, 'source'], [8, 'fork']));
    expect(read(ws, 'b.txt')).toBe('b\n');

    // The command's one step: the transfer and the checkpoint of the files after the merge.
    const events = b.store.events.readThreadAfter(threadId, 0).filter((e) => e.commandId === ack.commandId);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['context-transfer.recorded', 'checkpoint.recorded']),
    );
    expect(events.at(-1)!.sequence).toBe(ack.sequence);
    expect(b.store.projections.get('checkpoints', result.checkpointId)).toMatchObject({
      threadId,
      scopeKind: 'manual',
      runId: null,
      runOrdinal: 3,
      status: 'ready',
      diff: { files: 2 },
    });
    expect(b.store.projections.get('context_transfers', result.transferId)).toMatchObject({ kind: 'merge_back' });
  });

  it("is undone by a rollback to the source's last run, before or after a later run", async () => {
    const b = baton();
    const { ws, threadId, forkId } = await sourceAndFork(b);
    const before = fingerprint(ws);
    const merged = (await b.ok(mergeFiles(threadId, forkId))) as { checkpointId: string };
    // A run after the merge keeps it: its checkpoint holds the fork's file.
    await b.run(threadId, () => writeFileSync(join(ws, 'c.txt'), 'c\n'));
    await b.ok({ type: 'rollback.toRun', threadId, runOrdinal: 3 });
    expect(read(ws, 'fork.txt')).toBe('from the fork\n');
    expect(existsSync(join(ws, 'c.txt'))).toBe(true);

    const rolled = await b.ok({ type: 'rollback.toRun', threadId, runOrdinal: 2 });
    expect((rolled.changedPaths as string[]).sort()).toEqual(['a.txt', 'c.txt', 'fork.txt']);
    expect(fingerprint(ws)).toBe(before);
    expect(read(ws, 'a.txt')).toBe(lines([2, 'source']));
    expect(rolled.staleCheckpointIds).toContain(merged.checkpointId);
    expect(b.store.projections.get('checkpoints', merged.checkpointId)!.status).toBe('stale');
  });

  it('applies the fork’s changes after the source rolled back past the fork point (a stale fork point is still its base)', async () => {
    const b = baton();
    const ws = join(b.t.dir, 'source');
    mkdirSync(ws);
    const threadId = (await b.ok({ type: 'thread.create', cwd: ws })).threadId as string;
    await b.run(threadId, () => writeFileSync(join(ws, 'a.txt'), 'a\n'));
    const second = await b.run(threadId, () => writeFileSync(join(ws, 'b.txt'), 'b\n'));
    const forked = await b.ok({
      type: 'thread.fork',
      sourceThreadId: threadId,
      source: { type: 'run', threadId, runId: second },
    });
    await b.run(forked.threadId as string, () => writeFileSync(join(forked.cwd as string, 'fork.txt'), 'fork\n'));
    const rolled = await b.ok({ type: 'rollback.toRun', threadId, runOrdinal: 1 });
    expect(rolled.staleCheckpointIds).toHaveLength(1);

    const merged = await b.ok(mergeFiles(threadId, forked.threadId as string));
    expect(merged.changedPaths).toEqual(['fork.txt']);
    // The source's own rollback of b.txt stands: the fork did not change it.
    expect(readdirSync(ws).sort()).toEqual(['a.txt', 'fork.txt']);
  });

  it('refuses a conflict (the same line changed on both sides) naming the file: nothing stored, files untouched', async () => {
    const b = baton();
    const { ws, threadId, forkId } = await sourceAndFork(b, 5, 5);
    const before = fingerprint(ws);
    const sequence = b.store.lastSequence();
    const ack = await b.command(mergeFiles(threadId, forkId));
    expect(ack).toMatchObject({ ok: false, error: { code: 'conflict', details: { paths: ['a.txt'] } } });
    expect(fingerprint(ws)).toBe(before);
    expect(b.store.lastSequence()).toBe(sequence);
    expect(b.store.projections.list('context_transfers', threadId)).toEqual([]);
    expect(b.store.projections.list('checkpoints', threadId).map((c) => c.scopeKind)).not.toContain('manual');
    // The same merge without files is still taken: only the files conflicted.
    expect(await b.command({ type: 'thread.merge_back', threadId, fromThreadId: forkId })).toMatchObject({ ok: true });
  });

  it('is refused, typed and with nothing changed, while the source has a run going', async () => {
    const b = baton();
    const { ws, threadId, forkId } = await sourceAndFork(b);
    const end = await b.start(threadId);
    const before = fingerprint(ws);
    const sequence = b.store.lastSequence();
    expect(await b.command(mergeFiles(threadId, forkId))).toMatchObject({
      ok: false,
      error: { code: 'invalid_transition' },
    });
    expect(fingerprint(ws)).toBe(before);
    expect(b.store.lastSequence()).toBe(sequence);
    await end();
    expect(await b.command(mergeFiles(threadId, forkId))).toMatchObject({ ok: true });
  });

  it("is refused not_found when the fork's latest run has no ready checkpoint", async () => {
    const b = baton();
    const { ws, threadId, forkId, forkWs } = await sourceAndFork(b);
    // The fork's workspace goes away during its run: its checkpoint is recorded as an error.
    await b.run(forkId, () => rmSync(forkWs, { recursive: true }));
    const before = fingerprint(ws);
    expect(await b.command(mergeFiles(threadId, forkId))).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(fingerprint(ws)).toBe(before);
  });

  it('is refused conflict when the source workspace was replaced by a link into Baton’s data', async () => {
    const b = baton();
    const { ws, threadId, forkId } = await sourceAndFork(b);
    renameSync(ws, `${ws}-moved`);
    symlinkSync(b.dataDir, ws);
    cleanups.unshift(() => unlinkSync(ws));
    const sequence = b.store.lastSequence();
    expect(await b.command(mergeFiles(threadId, forkId))).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(b.store.lastSequence()).toBe(sequence);
    expect(readdirSync(`${ws}-moved`).sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('is refused for a fork working in its source’s workspace, and in a Baton that keeps no checkpoints', async () => {
    const shared = baton({ dataDir: false });
    const one = await sourceAndFork(shared);
    expect(one.forkWs).toBe(one.ws);
    expect(await shared.command(mergeFiles(one.threadId, one.forkId))).toMatchObject({
      ok: false,
      error: { code: 'invalid_command' },
    });

    const none = baton({ checkpoints: false });
    const two = await sourceAndFork(none);
    expect(await none.command(mergeFiles(two.threadId, two.forkId))).toMatchObject({
      ok: false,
      error: { code: 'unsupported' },
    });
  });
});
