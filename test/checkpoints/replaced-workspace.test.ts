import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { tempDir } from '../support/temp.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
const data = tempDir('baton-replaced-data-');
afterAll(data.cleanup);
const open = useRuntime({ checkpoints: new CheckpointStore({ root: join(data.dir, 'checkpoints') }) });

function workspace(): string {
  const ws = tempDir('baton-replaced-ws-');
  cleanups.push(ws.cleanup);
  return ws.dir;
}

/** The workspace folder swapped for a link to the folder that holds Baton's checkpoints. */
function replaceWithLinkToData(ws: string): void {
  renameSync(ws, `${ws}-moved`);
  symlinkSync(data.dir, ws);
  // Runs before the workspace's own cleanup: the link goes first, never followed.
  cleanups.unshift(() => {
    unlinkSync(ws);
    rmSync(`${ws}-moved`, { recursive: true, force: true });
  });
}

async function run(h: Harness, threadId: string, work: () => void = () => undefined) {
  expect(await h.command({ type: 'thread.message.send', threadId, text: 'go' })).toMatchObject({ ok: true });
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
  work();
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
  return t;
}

describe('a workspace replaced after its thread was made', () => {
  it("is not captured once it leads into Baton's own data: the checkpoints are recorded error, and the run ends", async () => {
    const h = open();
    const ws = workspace();
    const threadId = await h.thread({ cwd: ws });
    replaceWithLinkToData(ws);
    await run(h, threadId);
    const checkpoints = h.store.projections.list('checkpoints', threadId);
    expect(checkpoints.map((c) => [c.runOrdinal, c.status])).toEqual([
      [0, 'error'],
      [1, 'error'],
    ]);
    for (const c of checkpoints) expect(c.reason).toMatch(/contains Baton's own data/);
  });

  it("is not restored into: the rollback is a conflict and nothing in Baton's data is touched", async () => {
    const h = open();
    const ws = workspace();
    writeFileSync(join(ws, 'a.txt'), 'one\n');
    const threadId = await h.thread({ cwd: ws });
    await run(h, threadId, () => writeFileSync(join(ws, 'b.txt'), 'two\n'));
    expect(h.store.projections.list('checkpoints', threadId).map((c) => c.status)).toEqual(['ready', 'ready']);
    replaceWithLinkToData(ws);
    const facts = () => ({
      sequence: h.store.lastSequence(),
      checkpoints: h.store.projections.list('checkpoints', threadId),
      data: readdirSync(data.dir, { recursive: true }).sort(),
    });
    const before = facts();
    const ack = await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 0 });
    expect(ack).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect((ack as { error: { message: string } }).error.message).toMatch(/contains Baton's own data/);
    expect(facts()).toEqual(before);
  });
});
