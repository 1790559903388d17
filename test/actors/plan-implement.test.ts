import { describe, expect, it } from 'vitest';
import type { Harness } from '../support/runtime.js';
import { useCheckpointedRuntime } from '../support/checkpointed-runtime.js';

/**
 * `plan.implement`: a proposed plan becomes a new run that implements it, in the plan's
 * thread or in a fork of it, out of plan mode and told the plan in full. Real SQLite and
 * git checkpoints; the provider's part (turns, the plan) is played by the test.
 */
const open = useCheckpointedRuntime('baton-plan-implement-');

type Ack = { ok: boolean; result?: Record<string, string>; error?: { code: string } };
const implement = (h: Harness, planId: string, threadId?: string) =>
  h.command({ type: 'plan.implement', planId, ...(threadId ? { threadId } : {}) }) as Promise<Ack>;

const planText = '1. Add the parser.\n2. Test it.';

/** A run in plan mode whose turn proposes a plan (and streams a todo list); `final` says whether the plan is done. */
async function proposing(h: Harness, threadId: string, final: boolean) {
  const runId = await h.send(threadId, 'plan the parser');
  const t = h.turn(threadId);
  const turn = { threadId, runId, attemptId: t.attemptId, nodeId: t.rootNodeId };
  await h.feed({ type: 'turn.started', ...turn, nativeTurnRef: null });
  const on = { threadId, runId, nodeId: t.rootNodeId, steps: [] };
  await h.feed({ type: 'plan.updated', ...on, planId: `plan_${runId}`, kind: 'proposed_plan', text: planText, final });
  await h.feed({
    type: 'plan.updated',
    ...on,
    planId: `todo_${runId}`,
    kind: 'todo_list',
    text: null,
    steps: [{ text: 'plan', status: 'in_progress' }],
  });
  return { turn, planId: `plan_${runId}`, todoId: `todo_${runId}` };
}

async function finish(h: Harness, turn: { threadId: string; runId: string; attemptId: string; nodeId: string }) {
  await h.feed({ type: 'turn.completed', ...turn, status: 'completed', error: null });
  await h.until(() => h.ended(turn.runId));
}

const userText = (h: Harness, threadId: string, runId: string) =>
  h.store.projections
    .list('turn_items', threadId)
    .filter((i) => i.runId === runId && i.kind === 'user_message')
    .map((i) => i.text);

describe('plan.implement', () => {
  it("implements a proposed plan in a new run of its thread, out of plan mode, told the plan, its origin the plan's", async () => {
    const h = open();
    const threadId = await h.thread({ interactionMode: 'plan' });
    const { turn, planId } = await proposing(h, threadId, true);
    await finish(h, turn);

    const ack = await implement(h, planId);
    expect(ack).toMatchObject({
      ok: true,
      result: { dispatched: 'started', interactionMode: 'default', leftPlanMode: true },
    });
    const runId = ack.result!.runId!;
    expect(h.store.projections.get('threads', threadId)?.interactionMode).toBe('default');
    expect(h.run(runId).origin).toEqual({ kind: 'plan_implementation', planId });
    expect(userText(h, threadId, runId)).toEqual([`Implement this plan:\n\n${planText}`]);
    const queued = h.store.events.readThreadAfter(threadId, 0).filter((e) => e.type === 'run.queued');
    expect(queued.at(-1)?.payload).toMatchObject({ runId, origin: { kind: 'plan_implementation', planId } });
    // The turn that implements it goes out in default mode.
    const starts = h.store.outbox
      .list({ threadId })
      .filter((e) => e.kind === 'provider.turn.start' && e.runId === runId);
    expect(starts).toHaveLength(1);
    expect(JSON.stringify(starts[0]!.payload)).toContain('"interactionMode":"default"');
  });

  it('queues behind a run still going, never steering it; a thread already out of plan mode stays as it is', async () => {
    const h = open();
    const threadId = await h.thread();
    const { turn, planId } = await proposing(h, threadId, true);
    const ack = await implement(h, planId);
    expect(ack).toMatchObject({ ok: true, result: { dispatched: 'queued', leftPlanMode: false } });
    const runId = ack.result!.runId!;
    expect(h.run(runId).status).toBe('queued');
    expect(userText(h, threadId, turn.runId)).toEqual(['plan the parser']);
    await finish(h, turn);
    await h.until(() => h.run(runId).status === 'running' || h.run(runId).status === 'starting');
  });

  it('implements it in a fork of its thread (or a fork of that); refuses, storing nothing, anything else', async () => {
    const h = open();
    const threadId = await h.thread({ interactionMode: 'plan' });
    const first = await proposing(h, threadId, true);
    await finish(h, first.turn);
    // A plan still being written (its run still going: the run's end makes it final).
    const unfinished = await proposing(h, threadId, false);
    const other = await h.thread();

    const before = h.store.lastSequence();
    const refusal = async (ack: Promise<Ack>) => {
      const a = await ack;
      return a.ok ? 'accepted' : a.error?.code;
    };
    expect(await refusal(implement(h, 'plan_nope'))).toBe('not_found');
    expect(await refusal(implement(h, first.todoId))).toBe('invalid_command');
    expect(await refusal(implement(h, unfinished.planId))).toBe('invalid_transition');
    expect(await refusal(implement(h, first.planId, other))).toBe('invalid_command');
    expect(h.store.lastSequence()).toBe(before);
    expect(h.store.projections.get('threads', threadId)?.interactionMode).toBe('plan');
    await finish(h, unfinished.turn);

    const fork = (await h.command({
      type: 'thread.fork',
      sourceThreadId: threadId,
      source: { type: 'run', threadId, runId: first.turn.runId },
    })) as Ack;
    expect(fork.ok).toBe(true);
    const forkId = fork.result!.threadId!;
    const ack = await implement(h, first.planId, forkId);
    expect(ack).toMatchObject({ ok: true, result: { leftPlanMode: true } });
    const runId = ack.result!.runId!;
    expect(h.run(runId)).toMatchObject({
      threadId: forkId,
      origin: { kind: 'plan_implementation', planId: first.planId },
    });
    // A fork of that fork may implement it too.
    const t = h.turn(forkId);
    const forkTurn = { threadId: forkId, runId, attemptId: t.attemptId, nodeId: t.rootNodeId };
    await h.feed({ type: 'turn.started', ...forkTurn, nativeTurnRef: null });
    await finish(h, forkTurn);
    const again = (await h.command({
      type: 'thread.fork',
      sourceThreadId: forkId,
      source: { type: 'run', threadId: forkId, runId },
    })) as Ack;
    expect(again.ok).toBe(true);
    expect(await implement(h, first.planId, again.result!.threadId!)).toMatchObject({ ok: true });
    // The plan's own thread is untouched: still in plan mode, no new run.
    expect(h.store.projections.get('threads', threadId)?.interactionMode).toBe('plan');
    expect(h.store.projections.list('runs', threadId)).toHaveLength(2); // the two that proposed
  });
});
