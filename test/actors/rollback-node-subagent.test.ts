import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { acpBaseCapabilities } from '../../src/providers/acp/acp-capabilities.js';
import { claudeCapabilities } from '../../src/providers/claude/claude-capabilities.js';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { tempDir } from '../support/temp.js';

/**
 * `rollback.node` to a subagent's checkpoint, as the runtime decides it: the files of that
 * turn come back, and the answer says what became of the child's own conversation. A Codex
 * child asked again (a follow-up task) is a later subagent node bound to the same native
 * thread; no provider can drop those turns from it (`canRollbackSubagentThread`), so the
 * answer names them, `not_supported`, and nothing is asked of the provider.
 */
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
const data = tempDir('baton-subrb-data-');
afterAll(data.cleanup);
const open = useRuntime({ checkpoints: new CheckpointStore({ root: join(data.dir, 'checkpoints') }) });

function workspace(): string {
  const ws = tempDir('baton-subrb-ws-');
  cleanups.push(ws.cleanup);
  return ws.dir;
}

type Turn = ReturnType<Harness['turn']>;

/** A run whose root turn has started; `end` completes it. */
async function startRun(h: Harness, threadId: string, text: string): Promise<Turn & { end(): Promise<void> }> {
  await h.send(threadId, text);
  await h.worker.drain(); // the run's baseline is captured before its turn starts
  const t = h.turn(threadId);
  const on = { threadId, runId: t.runId, attemptId: t.attemptId };
  await h.feed({ type: 'turn.started', ...on, nodeId: t.rootNodeId, nativeTurnRef: null });
  return {
    ...t,
    end: async () => {
      await h.feed({ type: 'turn.completed', ...on, nodeId: t.rootNodeId, status: 'completed', error: null });
      await h.worker.drain();
    },
  };
}

/** One turn of a child, the way the Codex normalizer reports it: a subagent node bound to its native thread and turn. */
async function childTurn(
  h: Harness,
  threadId: string,
  t: Turn,
  nodeId: string,
  native: { thread?: string; turn?: string },
  work: () => void,
): Promise<string> {
  const on = { threadId, runId: t.runId };
  await h.feed({
    type: 'node.started',
    ...on,
    nodeId,
    parentNodeId: t.rootNodeId,
    attemptId: t.attemptId,
    kind: 'subagent',
    title: '/root/writer',
  });
  const detail = {
    ...(native.thread ? { nativeThreadId: native.thread } : {}),
    ...(native.turn ? { nativeTurnId: native.turn } : {}),
  };
  await h.feed({ type: 'node.detail', ...on, nodeId, text: null, detail });
  work();
  await h.feed({ type: 'node.completed', ...on, nodeId, status: 'completed' });
  await h.worker.drain(); // its own scope is captured as it ends
  const checkpoint = h.store.projections
    .list('checkpoints', threadId)
    .find((c) => c.scopeKind === 'subagent' && c.nodeId === nodeId);
  expect(checkpoint?.status).toBe('ready');
  return checkpoint!.id;
}

const warnings = (h: Harness) => h.published.filter((e) => e.type === 'runtime.warning');

describe('rollback.node of a subagent with later turns of its own', () => {
  it("restores the earlier turn's files and answers not_supported, naming the child's later turns (in any run, not another child's)", async () => {
    const h = open();
    const ws = workspace();
    const threadId = await h.thread({ cwd: ws });
    const run1 = await startRun(h, threadId, 'have a writer write two files');
    const first = await childTurn(h, threadId, run1, 'node_w1', { thread: 'child_w', turn: 'turn_1' }, () =>
      writeFileSync(join(ws, 'a.txt'), 'a\n'),
    );
    await childTurn(h, threadId, run1, 'node_w2', { thread: 'child_w', turn: 'turn_2' }, () =>
      writeFileSync(join(ws, 'b.txt'), 'b\n'),
    );
    await childTurn(h, threadId, run1, 'node_other', { thread: 'child_o', turn: 'turn_o' }, () => undefined);
    await run1.end();
    // The parent asks the same child again in its next run: a third turn of its thread.
    const run2 = await startRun(h, threadId, 'and once more');
    await childTurn(h, threadId, run2, 'node_w3', { thread: 'child_w', turn: 'turn_3' }, () =>
      writeFileSync(join(ws, 'c.txt'), 'c\n'),
    );
    await run2.end();
    const seen = h.published.length;

    // The child's last turn has nothing after it: its files (all three) are what they are.
    const last = h.store.projections
      .list('checkpoints', threadId)
      .find((c) => c.scopeKind === 'subagent' && c.nodeId === 'node_w3')!;
    const atLast = await h.command({ type: 'rollback.node', nodeId: 'node_w3', checkpointId: last.id });
    expect(atLast, JSON.stringify(atLast)).toMatchObject({
      ok: true,
      result: { changedPaths: [], conversation: 'nothing_to_drop', laterChildNodeIds: [] },
    });
    expect(warnings(h)).toEqual([]);

    const ack = await h.command({ type: 'rollback.node', nodeId: 'node_w1', checkpointId: first });
    expect(ack, JSON.stringify(ack)).toMatchObject({
      ok: true,
      result: {
        nodeId: 'node_w1',
        checkpointId: first,
        conversation: 'not_supported',
        laterChildNodeIds: ['node_w2', 'node_w3'],
      },
    });
    expect((ack.result as { changedPaths: string[] }).changedPaths.sort()).toEqual(['b.txt', 'c.txt']);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('a\n');
    expect([existsSync(join(ws, 'b.txt')), existsSync(join(ws, 'c.txt'))]).toEqual([false, false]);
    // Never silently: the thread's feed says it too, on the node's run, and nothing is asked of the provider.
    const told = warnings(h).filter((e) => h.published.indexOf(e) >= seen);
    expect(told).toHaveLength(1);
    expect(told[0]!.payload).toMatchObject({ threadId, runId: run1.runId });
    expect((told[0]!.payload as { message: string }).message).toContain('node_w2, node_w3');
    expect(
      h.store.outbox
        .list({ threadId })
        .filter((e) => e.kind.startsWith('provider.') && e.kind !== 'provider.turn.start'),
    ).toEqual([]);
    // The child's nodes stand as they ended: its thread still holds those turns.
    expect(['node_w2', 'node_w3'].map((id) => h.store.projections.get('graph_nodes', id)!.status)).toEqual([
      'completed',
      'completed',
    ]);
  });

  it('a child whose thread was never named (a Claude subagent) answers conversation null: there is no child thread to speak of', async () => {
    const h = open();
    const ws = workspace();
    const threadId = await h.thread({ cwd: ws });
    const run = await startRun(h, threadId, 'have a helper write');
    const checkpointId = await childTurn(h, threadId, run, 'node_helper', {}, () =>
      writeFileSync(join(ws, 'h.txt'), 'h\n'),
    );
    writeFileSync(join(ws, 'h.txt'), 'changed by the parent\n');
    await run.end();
    const ack = await h.command({ type: 'rollback.node', nodeId: 'node_helper', checkpointId });
    expect(ack, JSON.stringify(ack)).toMatchObject({
      ok: true,
      result: { conversation: null, laterChildNodeIds: [], parentFilesChanged: true, parentOverlap: ['h.txt'] },
    });
    expect(readFileSync(join(ws, 'h.txt'), 'utf8')).toBe('h\n');
    expect(warnings(h)).toEqual([]);
  });

  it("refuses, typed and with nothing restored, a checkpoint of another node, a run's own checkpoint and an unknown node", async () => {
    const h = open();
    const ws = workspace();
    const threadId = await h.thread({ cwd: ws });
    const run = await startRun(h, threadId, 'two turns of a writer');
    const first = await childTurn(h, threadId, run, 'node_r1', { thread: 'child_r', turn: 'turn_1' }, () =>
      writeFileSync(join(ws, 'a.txt'), 'a\n'),
    );
    await childTurn(h, threadId, run, 'node_r2', { thread: 'child_r', turn: 'turn_2' }, () =>
      writeFileSync(join(ws, 'b.txt'), 'b\n'),
    );
    await run.end();
    const root = h.store.projections.list('checkpoints', threadId).find((c) => c.scopeKind === 'root_run' && c.runId)!;
    const refusals = [
      await h.command({ type: 'rollback.node', nodeId: 'node_r2', checkpointId: first }),
      await h.command({ type: 'rollback.node', nodeId: 'node_r1', checkpointId: root.id }),
      await h.command({ type: 'rollback.node', nodeId: 'node_nobody', checkpointId: first }),
    ];
    expect(refusals.map((r) => [r.ok, (r.error as { code: string }).code])).toEqual([
      [false, 'not_found'],
      [false, 'not_found'],
      [false, 'not_found'],
    ]);
    expect(existsSync(join(ws, 'b.txt'))).toBe(true);
    expect(warnings(h)).toEqual([]);
  });

  it('no provider declares it can roll a subagent thread back (Codex refuses it, measured live)', () => {
    expect(
      [codexCapabilities, claudeCapabilities, acpBaseCapabilities].map((c) => c.subagents.canRollbackSubagentThread),
    ).toEqual([false, false, false]);
  });
});
