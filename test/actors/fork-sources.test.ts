import { describe, expect, it } from 'vitest';
import { ThreadId } from '../../src/domain/ids.js';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import type { ProjectionRow } from '../../src/domain/projections.js';
import { streamSnapshot } from '../../src/server/streams.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { seededTurnStart, useCheckpointedRuntime } from '../support/checkpointed-runtime.js';

/**
 * `thread.fork` from each kind of source (a run, a node, a checkpoint, a provider thread
 * with or without a native turn id): each resolves to a finished run of the source, the
 * fork point. The fork's snapshot shows the source's history up to that run, inherited,
 * then its own; its first run (portable here: the source's provider thread was never bound
 * to a native one) is told exactly the runs up to it. Real SQLite, real git checkpoints;
 * the provider's part (turns, replies) is played by the test.
 */
const open = useCheckpointedRuntime('baton-fork-sources-');
const openWithoutCheckpoints = useRuntime({ handlers: () => ({ 'provider.turn.start': seededTurnStart }) });
/** Codex as a provider that cannot fork a subagent's thread. */
const openWithoutSubagentForks = useRuntime({
  handlers: () => ({ 'provider.turn.start': seededTurnStart }),
  capabilities: () => ({
    ...codexCapabilities,
    threads: { ...codexCapabilities.threads, canForkFromSubagentThread: false },
  }),
});

type Item = ProjectionRow<'turn_items'>;
interface Snapshot {
  thread: ProjectionRow<'threads'>;
  turnItems: Item[];
  visibleTurnItems: Item[];
}
type Ack = { ok: true; result: Record<string, unknown> } | { ok: false; error: { code: string; message: string } };

let messages = 0;
const snapshot = (h: Harness, threadId: string) =>
  streamSnapshot(h.store, { stream: 'thread', threadId: ThreadId.parse(threadId) }) as Snapshot;
/** What was said: the user's and the agent's messages. */
const said = (items: Item[]) =>
  items.filter((i) => i.kind === 'user_message' || i.kind === 'assistant_message').map((i) => i.text);
const fork = (h: Harness, sourceThreadId: string, source: Record<string, unknown>) =>
  h.command({ type: 'thread.fork', sourceThreadId, source }) as Promise<Ack>;
const refusal = async (ack: Promise<Ack>) => {
  const a = await ack;
  return a.ok ? 'accepted' : a.error.code;
};

interface Turn {
  threadId: string;
  runId: string;
  attemptId: string;
  nodeId: string;
}

/** A run up to its turn started (with `turnRef` as the native turn id): it is running. */
async function started(h: Harness, threadId: string, text: string, turnRef: string | null = null): Promise<Turn> {
  const runId = await h.send(threadId, text);
  const turnStarted = () =>
    h.store.outbox
      .list({ threadId })
      .some((e) => e.kind === 'provider.turn.start' && e.runId === runId && e.status === 'completed');
  await h.until(turnStarted);
  const t = h.turn(threadId);
  const turn = { threadId, runId, attemptId: t.attemptId, nodeId: t.rootNodeId };
  await h.feed({ type: 'turn.started', ...turn, nativeTurnRef: turnRef });
  return turn;
}

/** The agent replies `reply` and the turn ends; the run is finished, its checkpoint recorded. */
async function finished(h: Harness, turn: Turn, reply: string): Promise<string> {
  const { threadId, runId, nodeId } = turn;
  await h.feed({ type: 'message.delta', threadId, runId, nodeId, messageId: `msg_agent${++messages}`, delta: reply });
  await h.feed({ type: 'turn.completed', ...turn, status: 'completed', error: null });
  await h.until(() => h.ended(runId));
  expect(h.run(runId).status).toBe('completed');
  return runId;
}

const run = async (h: Harness, threadId: string, text: string, reply: string, turnRef: string | null = null) =>
  finished(h, await started(h, threadId, text, turnRef), reply);

/** A source of two runs, native turns `turn-a` and `turn-b`; run 1 has a tool node too. */
async function twoRuns(h: Harness) {
  const threadId = await h.thread();
  const one = await started(h, threadId, 'remember the number 42', 'turn-a');
  const toolNodeId = `node_tool${++messages}`;
  await h.feed({
    type: 'node.started',
    ...one,
    nodeId: toolNodeId,
    parentNodeId: one.nodeId,
    kind: 'tool_call',
    title: 'ls',
  });
  const first = await finished(h, one, 'Noted: 42.');
  const second = await run(h, threadId, 'now remember the number 7', 'Noted: 7.', 'turn-b');
  return { threadId, first, second, toolNodeId };
}

/** The fork's first run: what it was told (the seed), and its reply. */
async function firstForkRun(h: Harness, forkId: string) {
  await run(h, forkId, 'what was the number?', 'It was 42.');
  const seeded = h.store.events.readThreadAfter(forkId, 0).filter((e) => e.type === 'context.seeded');
  expect(seeded).toHaveLength(1);
  return seeded[0]!.payload as { coveredRunOrdinals: number[]; text: string; fromThreadId: string };
}

/** The fork's conversation: the inherited items, all first, then its own. */
function split(h: Harness, forkId: string) {
  const snap = snapshot(h, forkId);
  const inherited = snap.visibleTurnItems.filter((i) => i.inherited === true);
  expect(snap.visibleTurnItems.slice(0, inherited.length)).toEqual(inherited);
  expect(snap.turnItems.some((i) => i.inherited)).toBe(false);
  return { snap, inherited, own: snap.visibleTurnItems.slice(inherited.length) };
}

describe('thread.fork from each kind of source', () => {
  const atRunOne: [string, (s: Awaited<ReturnType<typeof twoRuns>>, h: Harness) => Record<string, unknown>][] = [
    ['a run', (s) => ({ type: 'run', threadId: s.threadId, runId: s.first })],
    ["the run's root node", (s, h) => ({ type: 'node', nodeId: h.run(s.first).rootNodeId })],
    ['a tool node of the run', (s) => ({ type: 'node', nodeId: s.toolNodeId })],
    [
      "the run's checkpoint",
      (s, h) => ({ type: 'checkpoint', threadId: s.threadId, checkpointId: h.run(s.first).checkpointId }),
    ],
    [
      'its provider thread at the native turn of the run',
      (s, h) => ({
        type: 'provider_thread',
        threadId: s.threadId,
        providerThreadId: h.run(s.first).providerThreadId,
        providerTurnId: 'turn-a',
      }),
    ],
  ];

  it.each(atRunOne)('%s: the fork inherits run 1 and is told run 1, not run 2', async (_, sourceOf) => {
    const h = open();
    const s = await twoRuns(h);
    const source = sourceOf(s, h);
    const ack = await fork(h, s.threadId, source);
    if (!ack.ok) throw new Error(`fork refused: ${JSON.stringify(ack.error)}`);
    const forkId = ack.result.threadId as string;
    expect(ack.result.forkedFrom).toEqual({ threadId: s.threadId, runId: s.first, runOrdinal: 1 });
    expect(h.store.projections.get('threads', forkId)!.lineage.forkedFrom).toMatchObject({
      threadId: s.threadId,
      runId: s.first,
      runOrdinal: 1,
      nodeId: source.type === 'node' ? source.nodeId : null,
      checkpointId: source.type === 'checkpoint' ? source.checkpointId : null,
    });
    // Before the fork has run: its conversation is the source's up to run 1, and only that.
    const before = split(h, forkId);
    expect(said(before.inherited)).toEqual(['remember the number 42', 'Noted: 42.']);
    expect(before.inherited.every((i) => i.threadId === s.threadId && i.runId !== s.second)).toBe(true);
    expect(before.own).toEqual([]);

    const seed = await firstForkRun(h, forkId);
    expect(seed.coveredRunOrdinals).toEqual([1]);
    expect(seed.fromThreadId).toBe(s.threadId);
    expect(seed.text).toContain('Noted: 42.');
    expect(seed.text).not.toContain('number 7');
    const after = split(h, forkId);
    expect(after.inherited).toEqual(before.inherited);
    expect(said(after.own)).toEqual(['what was the number?', 'It was 42.']);
  });

  it('a provider thread without a turn id: its last finished run, while a later run on it still runs', async () => {
    const h = open();
    const s = await twoRuns(h);
    const providerThreadId = h.run(s.first).providerThreadId;
    const third = await started(h, s.threadId, 'and 99', 'turn-c');
    const byThread = { type: 'provider_thread', threadId: s.threadId, providerThreadId };
    expect(await refusal(fork(h, s.threadId, { ...byThread, providerTurnId: 'turn-c' }))).toBe('invalid_transition');
    const ack = await fork(h, s.threadId, byThread);
    if (!ack.ok) throw new Error(`fork refused: ${JSON.stringify(ack.error)}`);
    expect(ack.result.forkedFrom).toEqual({ threadId: s.threadId, runId: s.second, runOrdinal: 2 });
    const forkId = ack.result.threadId as string;
    expect(said(split(h, forkId).inherited)).toEqual([
      'remember the number 42',
      'Noted: 42.',
      'now remember the number 7',
      'Noted: 7.',
    ]);
    await finished(h, third, 'Noted: 99.');
    expect((await firstForkRun(h, forkId)).coveredRunOrdinals).toEqual([1, 2]);
    // The source's run 3, finished since, is not the fork's.
    expect(said(split(h, forkId).inherited).join(' ')).not.toContain('99');
  });
});

describe('thread.fork refusals', () => {
  it('a running run, by any source that names it, is invalid_transition; nothing is stored', async () => {
    const h = open();
    const threadId = await h.thread();
    const turn = await started(h, threadId, 'hello', 'turn-x');
    const runRow = h.run(turn.runId);
    const ids = { threadId, providerThreadId: runRow.providerThreadId };
    for (const source of [
      { type: 'run', threadId, runId: turn.runId },
      { type: 'node', nodeId: turn.nodeId },
      { type: 'provider_thread', ...ids, providerTurnId: 'turn-x' },
      { type: 'provider_thread', ...ids },
    ])
      expect(await refusal(fork(h, threadId, source)), source.type).toBe('invalid_transition');
    expect(h.store.projections.list('threads').map((t) => t.id)).toEqual([threadId]);
  });

  it('unknown ids and ids of another thread are not_found; a subagent that named no native thread, a node inside one, its checkpoint and the first baseline are unsupported', async () => {
    const h = open();
    const s = await twoRuns(h);
    const other = await twoRuns(h);
    const threadId = s.threadId;
    const mine = h.run(s.first);
    const theirs = h.run(other.first);
    const notFound = [
      { type: 'run', threadId, runId: 'run_nope' },
      { type: 'node', nodeId: 'node_nope' },
      { type: 'checkpoint', threadId, checkpointId: 'ckpt_nope' },
      { type: 'provider_thread', threadId, providerThreadId: 'pthr_nope' },
      { type: 'provider_thread', threadId, providerThreadId: mine.providerThreadId, providerTurnId: 'turn-nope' },
      // The other thread's run, node, checkpoint, provider thread and turn.
      { type: 'run', threadId, runId: other.first },
      { type: 'node', nodeId: theirs.rootNodeId },
      { type: 'checkpoint', threadId, checkpointId: theirs.checkpointId },
      { type: 'provider_thread', threadId, providerThreadId: theirs.providerThreadId },
      { type: 'provider_thread', threadId, providerThreadId: mine.providerThreadId, providerTurnId: 'nope' },
      // A source naming another thread than the command's.
      { type: 'run', threadId: other.threadId, runId: other.first },
    ];
    for (const source of notFound)
      expect(await refusal(fork(h, threadId, source)), JSON.stringify(source)).toBe('not_found');
    expect(await refusal(fork(h, 'thr_nope', { type: 'run', threadId: 'thr_nope', runId: s.first }))).toBe('not_found');

    // A run with a subagent whose native thread was never named: its node, a node inside it, its checkpoint.
    const turn = await started(h, threadId, 'delegate');
    const sub = { ...turn, nodeId: 'node_sub1' };
    await h.feed({ type: 'node.started', ...sub, parentNodeId: turn.nodeId, kind: 'subagent', title: 'helper' });
    await h.feed({
      type: 'node.started',
      ...turn,
      nodeId: 'node_subtool',
      parentNodeId: sub.nodeId,
      kind: 'tool_call',
      title: 'ls',
    });
    await h.feed({ type: 'turn.completed', ...sub, status: 'completed', error: null });
    await finished(h, turn, 'Done.');
    const checkpoints = h.store.projections.list('checkpoints', threadId);
    const subCheckpoint = checkpoints.find((c) => c.scopeKind === 'subagent');
    const baseline = checkpoints.find((c) => c.runOrdinal === 0);
    expect(subCheckpoint?.status).toBe('ready');
    expect(baseline?.status).toBe('ready');
    for (const source of [
      { type: 'node', nodeId: 'node_sub1' },
      { type: 'node', nodeId: 'node_subtool' },
      { type: 'checkpoint', threadId, checkpointId: subCheckpoint!.id },
      { type: 'checkpoint', threadId, checkpointId: baseline!.id },
    ])
      expect(await refusal(fork(h, threadId, source)), JSON.stringify(source)).toBe('unsupported');
    // The run's own root node is a fork point all the same.
    expect(await refusal(fork(h, threadId, { type: 'node', nodeId: turn.nodeId }))).toBe('accepted');
    expect(h.store.projections.list('threads')).toHaveLength(3);
  });

  it('a checkpoint that is not ready is not_found (a Baton that keeps none records them missing)', async () => {
    const h = openWithoutCheckpoints();
    const threadId = await h.thread();
    const runId = await run(h, threadId, 'hello', 'Hi.');
    const checkpointId = h.run(runId).checkpointId!;
    expect(h.store.projections.get('checkpoints', checkpointId)!.status).toBe('missing');
    expect(await refusal(fork(h, threadId, { type: 'checkpoint', threadId, checkpointId }))).toBe('not_found');
    // The run itself is a fork point: its fork works in the source's workspace.
    expect(await refusal(fork(h, threadId, { type: 'run', threadId, runId }))).toBe('accepted');
  });
});

describe("a fork's inherited history", () => {
  it("a fork of a fork inherits its source's inherited items, then its source's own up to the fork point", async () => {
    const h = open();
    const s = await twoRuns(h);
    const one = await fork(h, s.threadId, { type: 'run', threadId: s.threadId, runId: s.first });
    const f1 = (one.ok ? one.result.threadId : null) as string;
    await firstForkRun(h, f1);
    const f1First = h.store.projections.list('runs', f1)[0]!.id;
    await run(h, f1, 'and double it', 'That is 84.');
    const two = await fork(h, f1, { type: 'run', threadId: f1, runId: f1First });
    const f2 = (two.ok ? two.result.threadId : null) as string;
    const { inherited } = split(h, f2);
    const byThread = (t: string) => said(inherited.filter((i) => i.threadId === t));
    expect(byThread(s.threadId)).toEqual(['remember the number 42', 'Noted: 42.']);
    expect(byThread(f1)).toEqual(['what was the number?', 'It was 42.']);
    // F1's own seed (what its first run was told) is part of its history too.
    expect(inherited.filter((i) => i.threadId === f1 && i.data.contextSeed === true)).toHaveLength(1);
    expect(said(inherited)).toEqual(['remember the number 42', 'Noted: 42.', 'what was the number?', 'It was 42.']);
    const seed = await firstForkRun(h, f2);
    expect(seed.fromThreadId).toBe(f1);
    expect(seed.coveredRunOrdinals).toEqual([1]);
    expect(seed.text).not.toContain('double');
    expect(said(split(h, f2).own)).toEqual(['what was the number?', 'It was 42.']);
  });

  it("a rollback in the source after the fork does not rewrite the fork's history", async () => {
    const h = open();
    const s = await twoRuns(h);
    const ack = await fork(h, s.threadId, { type: 'run', threadId: s.threadId, runId: s.second });
    const forkId = (ack.ok ? ack.result.threadId : null) as string;
    const before = split(h, forkId).inherited;
    expect(
      await refusal(h.command({ type: 'rollback.toRun', threadId: s.threadId, runOrdinal: 1 }) as Promise<Ack>),
    ).toBe('accepted');
    expect(h.run(s.second).status).toBe('rolled_back');
    const instead = await run(h, s.threadId, 'remember 5 instead', 'Noted: 5.');
    const ids = (items: Item[]) => items.map((i) => i.id);
    expect(ids(split(h, forkId).inherited)).toEqual(ids(before));
    expect(said(before)).toContain('Noted: 7.');
    // A fork of the source now is taken from its conversation as it stands.
    const now = await fork(h, s.threadId, { type: 'run', threadId: s.threadId, runId: instead });
    const later = split(h, (now.ok ? now.result.threadId : null) as string).inherited;
    expect(said(later)).toEqual(['remember the number 42', 'Noted: 42.', 'remember 5 instead', 'Noted: 5.']);
  });
});

describe('a fork from a subagent node', () => {
  /** A finished run whose subagent named its native thread and last turn, with a tool node inside it. */
  async function withSubagent(h: Harness, endChild = true) {
    const threadId = await h.thread();
    const turn = await started(h, threadId, 'delegate', 'turn-root');
    const sub = { ...turn, nodeId: `node_sub${++messages}` };
    const insideId = `node_subtool${messages}`;
    await h.feed({ type: 'node.started', ...sub, parentNodeId: turn.nodeId, kind: 'subagent', title: 'helper' });
    const detail = { nativeThreadId: 'thread-child', nativeTurnId: 'turn-child' };
    await h.feed({ type: 'node.detail', ...sub, text: null, detail });
    await h.feed({
      type: 'node.started',
      ...turn,
      nodeId: insideId,
      parentNodeId: sub.nodeId,
      kind: 'tool_call',
      title: 'ls',
    });
    if (endChild) await h.feed({ type: 'turn.completed', ...sub, status: 'completed', error: null });
    else await h.until(() => h.store.projections.get('graph_nodes', sub.nodeId)?.status === 'running');
    await finished(h, turn, 'Done.');
    return { threadId, runId: turn.runId, subNodeId: sub.nodeId, insideId };
  }

  it("where the provider declares canForkFromSubagentThread: the fork's first run forks the child's native thread at its last turn, told nothing portably", async () => {
    const h = open();
    const s = await withSubagent(h);
    expect(await refusal(fork(h, s.threadId, { type: 'node', nodeId: s.insideId }))).toBe('unsupported');
    const ack = await fork(h, s.threadId, { type: 'node', nodeId: s.subNodeId });
    if (!ack.ok) throw new Error(`fork refused: ${JSON.stringify(ack.error)}`);
    const forkId = ack.result.threadId as string;
    expect(h.store.projections.get('threads', forkId)!.lineage.forkedFrom).toMatchObject({
      threadId: s.threadId,
      runId: s.runId,
      nodeId: s.subNodeId,
    });
    await run(h, forkId, 'and then?', 'Then 84.');
    const start = h.store.outbox.list({ threadId: forkId }).find((e) => e.kind === 'provider.turn.start')!;
    expect(start.payload.fork).toMatchObject({
      sourceThreadId: s.threadId,
      sourceRunId: s.runId,
      sourceNativeThreadRef: 'thread-child',
      sourceNativeTurnRef: 'turn-child',
    });
    // Never a portable seed of the parent's runs: the child's conversation comes with its native thread.
    expect(h.store.events.readThreadAfter(forkId, 0).some((e) => e.type === 'context.seeded')).toBe(false);
  });

  it('a child still running is invalid_transition; nothing is stored', async () => {
    const h = open();
    const s = await withSubagent(h, false);
    expect(await refusal(fork(h, s.threadId, { type: 'node', nodeId: s.subNodeId }))).toBe('invalid_transition');
    expect(h.store.projections.list('threads').map((t) => t.id)).toEqual([s.threadId]);
  });

  it('where the provider does not declare canForkFromSubagentThread: unsupported, nothing stored', async () => {
    const h = openWithoutSubagentForks();
    const s = await withSubagent(h);
    expect(await refusal(fork(h, s.threadId, { type: 'node', nodeId: s.subNodeId }))).toBe('unsupported');
    expect(h.store.projections.list('threads').map((t) => t.id)).toEqual([s.threadId]);
  });
});
