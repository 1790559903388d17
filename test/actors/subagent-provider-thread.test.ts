import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { NodeId, ProviderSessionId, RunAttemptId, RunId, ThreadId } from '../../src/domain/ids.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { actorStates } from '../../src/server/actor-states.js';
import { createCodexNormalizer, type CodexNormalizer } from '../../src/providers/codex/codex-normalizer.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { tempDir } from '../support/temp.js';

/**
 * A Codex subagent's own native thread as a Baton provider thread, end to end through the
 * runtime: the real Codex normalizer is fed frames as codex 0.169.0 sends them (v2, as Baton's
 * Codex home runs it) and its events go to the runtime as an adapter would hand them over.
 */
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
const data = tempDir('baton-subpt-data-');
afterAll(data.cleanup);
const open = useRuntime({ checkpoints: new CheckpointStore({ root: join(data.dir, 'checkpoints') }) });

const root = 'nthr_root';
const child = 'nthr_child';

function workspace(): string {
  const ws = tempDir('baton-subpt-ws-');
  cleanups.push(ws.cleanup);
  return ws.dir;
}

/** Feeds one Codex notification through the normalizer, and what it makes of it to the runtime. */
async function frame(h: Harness, n: CodexNormalizer, method: string, params: unknown): Promise<void> {
  for (const event of n.normalize({ method, params })) await h.feed(event);
}

const turnOf = (thread: string, id: string, status: string, rootTurnId: string) => ({
  threadId: thread,
  turn: { id, rootTurnId, status, error: null, items: [] },
});

/** A run of the thread whose root turn (`nativeTurn`) has started on the normalizer's thread. */
async function runStarted(h: Harness, n: CodexNormalizer, threadId: string, nativeTurn: string) {
  await h.send(threadId, `turn ${nativeTurn}`);
  await h.worker.drain(); // the run's baseline is captured before its turn starts
  const t = h.turn(threadId);
  n.pendingStart = {
    runId: RunId.parse(t.runId),
    attemptId: RunAttemptId.parse(t.attemptId),
    rootNodeId: NodeId.parse(t.rootNodeId),
  };
  await frame(h, n, 'turn/started', turnOf(root, nativeTurn, 'inProgress', nativeTurn));
  return t;
}

/** One turn of the child (`turnId`), for the root turn `rootTurn`. */
async function childTurn(h: Harness, n: CodexNormalizer, turnId: string, rootTurn: string, during: () => void) {
  await frame(h, n, 'turn/started', turnOf(child, turnId, 'inProgress', rootTurn));
  during();
  await frame(h, n, 'turn/completed', turnOf(child, turnId, 'completed', rootTurn));
}

/** A v2 spawn of a child on its native thread (`id` the spawning call). */
const spawn = (id: string, thread: string) => ({
  type: 'subAgentActivity',
  id,
  kind: 'started',
  agentThreadId: thread,
  agentPath: `/root/${id}`,
});

/** A provider thread's persisted actor: its state and context. */
function providerThread(h: Harness, id: string) {
  const row = h.store.entities.get(id);
  expect(row?.kind).toBe('provider_thread');
  return row!.snapshot as { value: string; context: Record<string, unknown> };
}

/** The thread's Codex normalizer for one session, driving its root native thread, told of the children earlier sessions met. */
function normalizerOf(threadId: string, h?: Harness, session = 'psess_sub'): CodexNormalizer {
  const host = h?.runtime.providerHost('codex');
  const n = createCodexNormalizer({
    threadId: ThreadId.parse(threadId),
    sessionId: ProviderSessionId.parse(session),
    ids: new SequentialIds(session),
    ...(host ? { subagentThreadOf: (ref: string) => host.subagentThreadOf(threadId, ref) } : {}),
  });
  n.nativeThreadId = root;
  return n;
}

describe("a Codex subagent's own thread", () => {
  it('is a provider thread owned by the node that spawned it, bound to its native thread, active while the child runs and idle after; a follow-up reuses it', async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const n = normalizerOf(threadId);
    const rootProviderThread = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
    const run1 = await runStarted(h, n, threadId, 'nturn_r1');

    // The v2 spawn names the child's thread at once (as Codex sends it, its model fields too).
    const item = { ...spawn('call_spawn', child), model: null, reasoningEffort: null };
    await frame(h, n, 'item/started', { threadId: root, turnId: 'nturn_r1', item });
    const node = h.store.projections.list('graph_nodes', threadId).find((x) => x.kind === 'subagent')!;
    expect(node.parentNodeId).toBe(run1.rootNodeId);
    const id = node.providerThreadId!;
    expect(id).toMatch(/^pthr_/);
    expect(node.detail).toMatchObject({ nativeThreadId: child, providerThreadId: id });
    expect(providerThread(h, id)).toMatchObject({
      value: 'idle',
      context: { owner: { type: 'node', nodeId: node.id }, nativeThreadRef: child, threadId, provider: 'codex' },
    });
    // Its native ref is evidence, bound to it (scoped to its owner), and read back like any provider thread's.
    expect(h.store.bindings.forApp(id)).toEqual([
      {
        provider: 'codex',
        scope: `node:${node.id}`,
        nativeRef: child,
        appId: id,
        entityKind: 'provider_thread',
        correlation: 'native_exact',
      },
    ]);
    expect(h.runtime.providerHost('codex').nativeThreadRef(id)).toBe(child);
    // On the graph stream, owned by the node; the thread's own provider thread is still the active one.
    const bound = h.published.filter((e) => e.type === 'provider-thread.bound' && e.payload.providerThread.id === id);
    expect(bound.map((e) => e.type === 'provider-thread.bound' && e.payload.providerThread.owner)).toEqual([
      { type: 'node', nodeId: node.id },
      { type: 'node', nodeId: node.id },
    ]);
    expect(h.store.projections.get('threads', threadId)!.activeProviderThreadId).toBe(rootProviderThread);

    let during = '';
    await childTurn(h, n, 'nturn_c1', 'nturn_r1', () => (during = providerThread(h, id).value));
    expect(during).toBe('active');
    expect(providerThread(h, id).value).toBe('idle');
    expect(h.store.projections.get('graph_nodes', node.id)!.status).toBe('completed');
    await frame(h, n, 'turn/completed', turnOf(root, 'nturn_r1', 'completed', 'nturn_r1'));
    await h.until(() => h.ended(run1.runId));

    // The parent's next run gives the same child a follow-up task: a later node, the same conversation.
    const run2 = await runStarted(h, n, threadId, 'nturn_r2');
    await childTurn(h, n, 'nturn_c2', 'nturn_r2', () => (during = providerThread(h, id).value));
    expect(during).toBe('active');
    const nodes = h.store.projections.list('graph_nodes', threadId).filter((x) => x.kind === 'subagent');
    expect(nodes.map((x) => [x.runId, x.providerThreadId, x.status])).toEqual([
      [run1.runId, id, 'completed'],
      [run2.runId, id, 'completed'],
    ]);
    expect(nodes[1]!.detail).toMatchObject({ nativeThreadId: child, providerThreadId: id, nativeTurnId: 'nturn_c2' });
    const providerThreads = actorStates(h.store, { type: 'actors', threadId: ThreadId.parse(threadId) })
      .actors.filter((a) => a.kind === 'provider_thread')
      .map((a) => a.id);
    expect(providerThreads.sort()).toEqual([id, rootProviderThread].sort());
    // Its coverage is the runs whose turns it ran in; its owner stays the node that spawned it.
    expect(providerThread(h, id)).toMatchObject({
      value: 'idle',
      context: { firstRunOrdinal: 1, lastRunOrdinal: 2, owner: { type: 'node', nodeId: node.id } },
    });

    // Persisted like any actor: a restart reads it back, owned by its node.
    const again = h.restart();
    expect(providerThread(again, id)).toMatchObject({ value: 'idle', context: { owner: { type: 'node' } } });
  });

  it("is closed when the child is closed, and unloaded with its session; the thread's own provider thread is untouched", async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const m = normalizerOf(threadId);
    await runStarted(h, m, threadId, 'nturn_r1');
    await frame(h, m, 'item/started', { threadId: root, turnId: 'nturn_r1', item: spawn('a', child) });
    await frame(h, m, 'item/started', { threadId: root, turnId: 'nturn_r1', item: spawn('b', 'nthr_other') });
    const [a, b] = h.store.projections
      .list('graph_nodes', threadId)
      .filter((x) => x.kind === 'subagent')
      .map((x) => x.providerThreadId!);
    expect(a).not.toBe(b);
    await frame(h, m, 'turn/started', turnOf('nthr_other', 'nturn_b', 'inProgress', 'nturn_r1'));
    expect(providerThread(h, b!).value).toBe('active');

    const close = {
      type: 'collabAgentToolCall',
      id: 'call_close',
      tool: 'closeAgent',
      status: 'completed',
      senderThreadId: root,
      receiverThreadIds: [child],
      prompt: null,
      model: null,
      reasoningEffort: null,
      agentsStates: { [child]: { status: 'shutdown', message: null } },
    };
    await frame(h, m, 'item/completed', { threadId: root, turnId: 'nturn_r1', item: close });
    expect(providerThread(h, a!).value).toBe('closed');

    // The Codex process goes: the running child's node is interrupted; its conversation is
    // not loaded anywhere now, but not ended (Codex keeps it for a later session).
    for (const event of m.subagents.closeAll()) await h.feed(event);
    expect(providerThread(h, b!).value).toBe('not_loaded');
    // What a later session is told of each: the open one goes on, the closed one does not.
    const host = h.runtime.providerHost('codex');
    expect([host.subagentThreadOf(threadId, 'nthr_other'), host.subagentThreadOf(threadId, child)]).toEqual([b, null]);
    expect(providerThread(h, a!).value).toBe('closed');
    const rootThread = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
    expect(providerThread(h, rootThread).value).toBe('not_loaded');
  });

  it('goes on in the same provider thread when a later session meets the same child, as Codex resumes it', async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const first = normalizerOf(threadId, h, 'psess_one');
    const run1 = await runStarted(h, first, threadId, 'nturn_r1');
    await frame(h, first, 'item/started', { threadId: root, turnId: 'nturn_r1', item: spawn('call_spawn', child) });
    await childTurn(h, first, 'nturn_c1', 'nturn_r1', () => undefined);
    await frame(h, first, 'turn/completed', turnOf(root, 'nturn_r1', 'completed', 'nturn_r1'));
    await h.until(() => h.ended(run1.runId));
    const id = h.store.projections.list('graph_nodes', threadId).find((x) => x.kind === 'subagent')!.providerThreadId!;
    // The session ends (a restart, an idle session reaped).
    for (const event of first.subagents.closeAll()) await h.feed(event);
    expect(providerThread(h, id).value).toBe('not_loaded');

    // The next session's follow-up reaches the same child: its frames go to the same provider thread.
    const second = normalizerOf(threadId, h, 'psess_two');
    const run2 = await runStarted(h, second, threadId, 'nturn_r2');
    let during = '';
    await childTurn(h, second, 'nturn_c2', 'nturn_r2', () => (during = providerThread(h, id).value));
    expect(during).toBe('active');
    const nodes = h.store.projections.list('graph_nodes', threadId).filter((x) => x.kind === 'subagent');
    expect(nodes.map((x) => [x.runId, x.providerThreadId])).toEqual([
      [run1.runId, id],
      [run2.runId, id],
    ]);
    expect(providerThread(h, id)).toMatchObject({
      value: 'idle',
      context: {
        nativeThreadRef: child,
        firstRunOrdinal: 1,
        lastRunOrdinal: 2,
        owner: { type: 'node', nodeId: nodes[0]!.id },
      },
    });
    const providerThreads = actorStates(h.store, { type: 'actors', threadId: ThreadId.parse(threadId) })
      .actors.filter((a) => a.kind === 'provider_thread')
      .map((a) => a.id);
    expect(providerThreads).toHaveLength(2); // the thread's own and the child's: no second one for the child
  });
});
