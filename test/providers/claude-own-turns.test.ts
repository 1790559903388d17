import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProviderSessionId, ProviderThreadId, ThreadId } from '../../src/domain/ids.js';
import type { ProviderEvent } from '../../src/domain/provider-events.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { createClaudeNormalizer, type ClaudeTurnRef } from '../../src/providers/claude/claude-normalizer.js';

/**
 * The Claude normalizer on background subagents and the turns the agent runs of its own,
 * recorded off the real agent 2.1.332 with background tasks on (test/fixtures/claude/
 * sdk-background.json; docs/claude.md, "Subagents"): `ownTurn` (a helper's ask, its end, the
 * agent's own turn after it), `queuedFirst` (a message handed over at the helper's
 * notification: the agent runs its own turn first) and `stopped` (the agent interrupted with no
 * turn running: the helper stops, no own turn follows).
 */
const Frame = z.looseObject({ type: z.string() });
const Flow = z.object({
  sent: z.array(z.string()),
  asks: z.array(z.object({ toolUseID: z.string(), agentID: z.string() })),
  frames: z.array(Frame),
});
const recorded = z
  .object({ ownTurn: Flow, queuedFirst: Flow, stopped: Flow })
  .parse(JSON.parse(readFileSync(new URL('../fixtures/claude/sdk-background.json', import.meta.url), 'utf8')));

type Frame = z.infer<typeof Frame>;
type Of<T extends ProviderEvent['type']> = Extract<ProviderEvent, { type: T }>;

function setup() {
  const ids = new SequentialIds('b');
  const n = createClaudeNormalizer({
    threadId: ThreadId.parse('thr_bg'),
    sessionId: ProviderSessionId.parse('psess_bg'),
    ids,
  });
  const ref = (uuid: string): ClaudeTurnRef => ({
    runId: ids.next('run'),
    attemptId: ids.next('attempt'),
    rootNodeId: ids.next('node'),
    uuid,
    providerThreadId: ProviderThreadId.parse('pthr_bg'),
  });
  return { n, ref };
}

const index = (frames: Frame[], test: (f: Frame) => boolean, from = 0) => {
  const at = frames.findIndex((f, i) => i >= from && test(f));
  if (at < 0) throw new Error('no such frame in the recording');
  return at;
};
const isResult = (f: Frame) => f.type === 'result';
const isSystem = (subtype: string) => (f: Frame) => f.type === 'system' && f['subtype'] === subtype;
const of = <T extends ProviderEvent['type']>(events: ProviderEvent[], type: T): Of<T>[] =>
  events.filter((e): e is Of<T> => e.type === type);

describe('the Claude normalizer, on background subagents and the turns the agent runs of its own', () => {
  it("a background helper outlives its parent's turn and asks on its own; its notification's turn asks Baton for a run, and is that run's once bound", async () => {
    const { sent, asks, frames } = recorded.ownTurn;
    const { n, ref } = setup();
    const one = ref(sent[0]!);
    n.begin(one, null);
    const rootEnd = index(frames, isResult);
    const before = frames.slice(0, rootEnd + 1).flatMap((f) => n.normalize(f));

    // The parent's turn ends; the helper and its command go on.
    const sub = of(before, 'node.started').find((e) => e.kind === 'subagent')!;
    const bash = of(before, 'node.started').find((e) => e.kind === 'tool_call')!;
    expect(bash.title).toMatch(/^printf 'from the helper.*> bg\.txt$/);
    expect(bash.parentNodeId).toBe(sub.nodeId);
    expect(of(before, 'turn.completed')).toMatchObject([{ runId: one.runId, status: 'completed' }]);
    expect(of(before, 'node.completed')).toEqual([]);
    expect(n.active).toBeNull();
    expect(n.backgroundWork).toBe(true);
    // Its ask is the run's, under its command, and outlives the run.
    expect(await n.askPlace(asks[0]!.toolUseID, asks[0]!.agentID)).toEqual({
      runId: one.runId,
      parentNodeId: bash.nodeId,
      outlivesRun: true,
    });

    const ownStart = index(frames, isSystem('init'), rootEnd);
    const ending = frames.slice(rootEnd + 1, ownStart + 1).flatMap((f) => n.normalize(f));
    expect(of(ending, 'node.completed').map((e) => [e.nodeId, e.status])).toEqual([
      [bash.nodeId, 'completed'],
      [sub.nodeId, 'completed'],
    ]);
    expect(ending.filter((e) => 'runId' in e && e.runId === one.runId).length).toBe(ending.length - 1);
    // The agent begins a turn of its own: Baton is asked for a run with the ids the normalizer picked.
    const [own] = of(ending, 'agent.turn');
    expect(own).toMatchObject({
      reason: 'subagent_notification',
      sourceNodeId: sub.nodeId,
      text: 'The background subagent "Write in the background" completed: Background work done.',
    });
    expect(own!.runId).not.toBe(one.runId);
    expect(n.ownsTurn(own!.attemptId)).toBe(true);
    expect(n.backgroundWork).toBe(true);
    // An ask of the own turn waits until it is bound.
    const held = n.askPlace('toolu_own', undefined);

    // Its run's turn start binds it (it runs still): from then on it is the active turn, that run's.
    const bound = n.adopt(own!.attemptId, ProviderThreadId.parse('pthr_bg'))!;
    expect(bound.map((e) => e.type)).toEqual(['turn.started', 'session.status']);
    expect(bound[0]).toMatchObject({ runId: own!.runId, attemptId: own!.attemptId, nodeId: own!.nodeId });
    expect(of(bound, 'turn.started')[0]!.nativeTurnRef).toBeNull();
    expect(await held).toEqual({ runId: own!.runId, parentNodeId: own!.nodeId, outlivesRun: false });
    const rest = frames.slice(ownStart + 1).flatMap((f) => n.normalize(f));
    expect(rest.every((e) => !('runId' in e) || e.runId === own!.runId)).toBe(true);
    expect(of(rest, 'message.completed')[0]).toMatchObject({ nodeId: own!.nodeId, text: 'Parent reply 3.' });
    expect(of(rest, 'turn.completed')).toMatchObject([{ attemptId: own!.attemptId, status: 'completed', error: null }]);
    expect(n.backgroundWork).toBe(false);
    expect(n.adopt(own!.attemptId, null)).toBeNull();
    expect(n.unknown).toBe(0);
  });

  it("an ask of an own turn not bound yet is denied when a message of Baton's is handed over (neither waits on the other)", async () => {
    const { sent, frames } = recorded.ownTurn;
    const { n, ref } = setup();
    n.begin(ref(sent[0]!), null);
    const ownStart = index(frames, isSystem('init'), index(frames, isResult));
    frames.slice(0, ownStart + 1).forEach((f) => n.normalize(f));
    const held = n.askPlace('toolu_own', undefined);
    n.begin(ref('00000000-0000-4000-8000-000000000002'), null);
    expect(await held).toBeNull();
  });

  it("a message handed over as the helper's notification comes waits behind the agent's own turn: nothing of either is the other's", () => {
    const { sent, frames } = recorded.queuedFirst;
    const { n, ref } = setup();
    n.begin(ref(sent[0]!), null);
    const notified = index(frames, isSystem('task_notification'));
    const first = frames.slice(0, notified + 1).flatMap((f) => n.normalize(f));
    expect(of(first, 'turn.completed')).toHaveLength(1);
    // The user's next message is handed over at the notification: the agent queues it...
    const two = ref(sent[1]!);
    n.begin(two, null);
    const queued = index(frames, (f) => f.type === 'command_lifecycle' && f['state'] === 'queued', notified);
    const ownStart = index(frames, isSystem('init'), notified);
    expect(queued).toBeLessThan(ownStart);
    // ...and runs its own turn first; Baton's message begins only when the agent starts it.
    const ownEnd = index(frames, isResult, ownStart);
    const own = frames.slice(notified + 1, ownEnd + 1).flatMap((f) => n.normalize(f));
    expect(own.map((e) => e.type)).toEqual(['agent.turn']);
    expect(n.waiting).toBe(two);
    const batons = frames.slice(ownEnd + 1).flatMap((f) => n.normalize(f));
    expect(of(batons, 'turn.started')).toMatchObject([{ attemptId: two.attemptId, nativeTurnRef: sent[1] }]);
    expect(of(batons, 'message.completed').map((e) => [e.runId, e.text])).toEqual([[two.runId, 'Parent reply 4.']]);
    expect(of(batons, 'turn.completed')).toMatchObject([{ runId: two.runId, status: 'completed' }]);

    // The own turn's run comes after it in Baton's queue: bound then, it is read whole, as its own.
    const [asked] = of(own, 'agent.turn');
    const bound = n.adopt(asked!.attemptId, null)!;
    expect(of(bound, 'message.completed').map((e) => [e.runId, e.text])).toEqual([[asked!.runId, 'Parent reply 3.']]);
    expect(of(bound, 'turn.completed')).toMatchObject([{ runId: asked!.runId, status: 'completed' }]);
  });

  it('the agent interrupted with no turn running stops its background helper: its node and command end interrupted, and no turn of its own follows', () => {
    const { sent, frames } = recorded.stopped;
    const { n, ref } = setup();
    const one = ref(sent[0]!);
    n.begin(one, null);
    const rootEnd = index(frames, isResult);
    const before = frames.slice(0, rootEnd + 1).flatMap((f) => n.normalize(f));
    const sub = of(before, 'node.started').find((e) => e.kind === 'subagent')!;
    const after = frames.slice(rootEnd + 1).flatMap((f) => n.normalize(f));
    expect(of(after, 'node.completed').map((e) => e.status)).toEqual(['interrupted', 'interrupted']);
    expect(of(after, 'node.completed').at(-1)).toMatchObject({ nodeId: sub.nodeId, runId: one.runId });
    expect(after.some((e) => e.type === 'agent.turn' || e.type === 'turn.started')).toBe(false);
    expect(n.backgroundWork).toBe(false);
  });
});
