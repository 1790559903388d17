import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { tempDir } from '../support/temp.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
const data = tempDir('baton-ckpt-data-');
afterAll(data.cleanup);
const open = useRuntime({ checkpoints: new CheckpointStore({ root: join(data.dir, 'checkpoints') }) });

function workspace(): string {
  const ws = tempDir('baton-ckpt-ws-');
  cleanups.push(ws.cleanup);
  return ws.dir;
}

/** One run in which the "agent" writes files between its turn starting and ending. */
async function runWith(
  h: Harness,
  threadId: string,
  text: string,
  work: () => void,
  status: 'completed' | 'interrupted' = 'completed',
) {
  const sent = (await h.command({ type: 'thread.message.send', threadId, text })) as {
    ok: boolean;
    result: { runId: string };
  };
  expect(sent.ok).toBe(true);
  await h.worker.drain(); // the baseline is captured before the provider turn starts
  const t = h.turn(threadId);
  await h.feed({
    type: 'turn.started',
    threadId,
    runId: t.runId,
    attemptId: t.attemptId,
    nodeId: t.rootNodeId,
    nativeTurnRef: null,
  });
  work();
  await h.feed({
    type: 'turn.completed',
    threadId,
    runId: t.runId,
    attemptId: t.attemptId,
    nodeId: t.rootNodeId,
    status,
    error: null,
  });
  await h.worker.drain();
  return t;
}

describe('checkpoints in the run lifecycle', () => {
  it('publishes a run terminal only after its checkpoint; one root checkpoint per counted run; diffs from checkpoint N-1', async () => {
    const h = open();
    const ws = workspace();
    writeFileSync(join(ws, 'a.txt'), 'original\n');
    const threadId = await h.thread({ cwd: ws });
    await runWith(h, threadId, 'one', () => writeFileSync(join(ws, 'a.txt'), 'original\nmore\n'));
    await runWith(h, threadId, 'two', () => writeFileSync(join(ws, 'b.txt'), 'new\n'));

    const events = h.store.events.readThreadAfter(threadId, 0);
    for (const terminal of events.filter((e) => e.type === 'run.terminal')) {
      const runId = (terminal.payload as { runId: string }).runId;
      const recorded = events.find(
        (e) =>
          e.type === 'checkpoint.recorded' &&
          (e.payload as { checkpoint: { runId: string; scopeKind: string } }).checkpoint.runId === runId,
      );
      expect(recorded!.sequence).toBeLessThan(terminal.sequence);
      expect((terminal.payload as { checkpointId: string }).checkpointId).toBe(
        (recorded!.payload as { checkpoint: { id: string } }).checkpoint.id,
      );
    }
    const checkpoints = h.store.projections.list('checkpoints', threadId);
    const counted = checkpoints.filter((c) => c.scopeKind === 'root_run' && (c.runOrdinal ?? 0) >= 1);
    expect(counted.map((c) => [c.runOrdinal, c.status, c.runStatus])).toEqual([
      [1, 'ready', 'completed'],
      [2, 'ready', 'completed'],
    ]);
    expect(h.store.projections.get('threads', threadId)!.runCount).toBe(counted.length);
    expect(checkpoints.find((c) => c.runOrdinal === 0)).toMatchObject({ status: 'ready', runId: null });
    expect(counted[0]!.diff).toEqual({ files: 1, additions: 1, deletions: 0 });
    expect(counted[1]!.diff).toEqual({ files: 1, additions: 1, deletions: 0 });
  });

  it('captures an interrupted run with a status that says so, and a subagent scope without advancing the run count', async () => {
    const h = open();
    const ws = workspace();
    const threadId = await h.thread({ cwd: ws });
    await runWith(h, threadId, 'one', () => writeFileSync(join(ws, 'x.txt'), 'x'), 'interrupted');
    expect(h.store.projections.list('checkpoints', threadId).find((c) => c.runOrdinal === 1)).toMatchObject({
      status: 'ready',
      runStatus: 'interrupted',
    });

    const t = await (async () => {
      await h.command({ type: 'thread.message.send', threadId, text: 'two' });
      await h.worker.drain();
      return h.turn(threadId);
    })();
    await h.feed({
      type: 'turn.started',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      nativeTurnRef: null,
    });
    await h.feed({
      type: 'node.started',
      threadId,
      runId: t.runId,
      nodeId: 'node_sub',
      parentNodeId: t.rootNodeId,
      attemptId: t.attemptId,
      kind: 'subagent',
      title: 'helper',
    });
    writeFileSync(join(ws, 'sub.txt'), 'by the subagent');
    await h.feed({
      type: 'turn.completed',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: 'node_sub',
      status: 'completed',
      error: null,
    });
    await h.worker.drain();
    const child = h.store.projections.list('checkpoints', threadId).find((c) => c.scopeKind === 'subagent');
    expect(child).toMatchObject({ nodeId: 'node_sub', runOrdinal: 2, status: 'ready', diff: { files: 1 } });
    expect(h.store.projections.get('threads', threadId)!.runCount).toBe(2);
    expect(h.store.projections.get('runs', t.runId)!.status).toBe('running');
  });
});

describe('rollback', () => {
  it("rollback.toRun(2) of 4 restores run 2's files, leaves runs 3-4 rolled_back, their checkpoints stale, and a reconciliation effect pending", async () => {
    const h = open();
    const ws = workspace();
    const threadId = await h.thread({ cwd: ws });
    const file = join(ws, 'story.txt');
    const runs = [];
    for (let i = 1; i <= 4; i++)
      runs.push((await runWith(h, threadId, `run ${i}`, () => writeFileSync(file, `version ${i}\n`))).runId);
    writeFileSync(join(ws, 'late.txt'), 'created after run 2');

    const ack = await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 2 });
    expect(ack, JSON.stringify(ack)).toMatchObject({ ok: true, result: { runOrdinal: 2 } });
    expect(readFileSync(file, 'utf8')).toBe('version 2\n');
    expect(existsSync(join(ws, 'late.txt'))).toBe(false);
    expect(runs.map((id) => h.store.projections.get('runs', id)!.status)).toEqual([
      'completed',
      'completed',
      'rolled_back',
      'rolled_back',
    ]);
    const byOrdinal = h.store.projections
      .list('checkpoints', threadId)
      .filter((c) => c.scopeKind === 'root_run')
      .map((c) => [c.runOrdinal, c.status]);
    expect(byOrdinal).toEqual([
      [0, 'ready'],
      [1, 'ready'],
      [2, 'ready'],
      [3, 'stale'],
      [4, 'stale'],
    ]);
    expect(h.effect('provider.thread.rollback', threadId)).toMatchObject({
      status: 'pending',
      payload: { runOrdinal: 2 },
    });

    // The next run is run 3 again, with a fresh checkpoint.
    await runWith(h, threadId, 'run 3 again', () => writeFileSync(file, 'version 3b\n'));
    const live = h.store.projections
      .list('checkpoints', threadId)
      .filter((c) => c.scopeKind === 'root_run' && c.status !== 'stale' && (c.runOrdinal ?? 0) >= 1);
    expect(live.map((c) => c.runOrdinal)).toEqual([1, 2, 3]);
    expect(h.store.projections.get('threads', threadId)!.runCount).toBe(3);
  });

  it('rollback.node restores a child scope and says when the parent run changed the same files', async () => {
    const h = open();
    const ws = workspace();
    const threadId = await h.thread({ cwd: ws });
    await h.command({ type: 'thread.message.send', threadId, text: 'go' });
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
      type: 'node.started',
      threadId,
      runId: t.runId,
      nodeId: 'node_sub',
      parentNodeId: t.rootNodeId,
      attemptId: t.attemptId,
      kind: 'subagent',
      title: null,
    });
    writeFileSync(join(ws, 'shared.txt'), 'subagent version');
    await h.feed({
      type: 'turn.completed',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: 'node_sub',
      status: 'completed',
      error: null,
    });
    await h.worker.drain();
    const child = h.store.projections.list('checkpoints', threadId).find((c) => c.scopeKind === 'subagent')!;
    writeFileSync(join(ws, 'shared.txt'), 'parent changed it afterwards');

    const ack = await h.command({ type: 'rollback.node', nodeId: 'node_sub', checkpointId: child.id });
    expect(ack, JSON.stringify(ack)).toMatchObject({
      ok: true,
      result: { parentFilesChanged: true, parentOverlap: ['shared.txt'] },
    });
    expect(readFileSync(join(ws, 'shared.txt'), 'utf8')).toBe('subagent version');
  });
});
