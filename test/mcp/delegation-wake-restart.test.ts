import { describe, expect, it } from 'vitest';
import { attachTask, watchDelegatedTasks } from '../../src/actors/delegated-tasks.js';
import { ThreadId } from '../../src/domain/ids.js';
import { useRuntime, type Harness } from '../support/runtime.js';

// The ends Baton missed while stopped: a task's end, or the end of the parent's run a wake-up
// was owed after, committed with no Baton watching (it died right after). The next Baton takes
// them up as it starts (`watchDelegatedTasks`, as baton-app runs it), once each. A real runtime
// on a real SQLite file; the provider's side is fed as normalized provider events.

const open = useRuntime();

/** The thread's newest turn runs and ends `completed`, having said `text`. */
async function finishTurn(h: Harness, threadId: string, text: string): Promise<void> {
  const t = h.turn(threadId);
  const ref = { threadId, runId: t.runId, attemptId: t.attemptId, nodeId: t.rootNodeId };
  await h.feed({ type: 'turn.started', ...ref, nativeTurnRef: `turn_${t.attemptId}` });
  await h.feed({ type: 'message.delta', ...ref, messageId: `msg_said_${t.runId}`, delta: text });
  await h.feed({ type: 'turn.completed', ...ref, status: 'completed', error: null });
  await h.until(() => h.ended(t.runId));
}

/** A task delegated by `parentId` while its run goes, as delegate_task makes it. */
async function delegate(h: Harness, parentId: string, task: string) {
  const threadId = ThreadId.parse(await h.thread({ parentThreadId: parentId }));
  const runId = await h.send(threadId, task);
  await attachTask(h.runtime, { threadId, runId, provider: 'codex', title: task, wake: true });
  return { threadId, runId };
}

const row = (h: Harness, taskId: string) => h.store.projections.get('delegated_tasks', taskId);
const wakes = (h: Harness, threadId: string) => h.store.projections.list('runs', threadId).filter((r) => r.origin);

describe('wake-ups Baton missed while stopped', () => {
  it('are queued by the next Baton as it starts, one per task, and never again after another restart', async () => {
    const h = open();
    let stopWatching = watchDelegatedTasks(h.runtime);
    const parentId = await h.thread();
    const parentRun = await h.send(parentId, 'parent work');
    const owed = await delegate(h, parentId, 'first task');
    const missed = await delegate(h, parentId, 'second task');
    await finishTurn(h, owed.threadId, 'First result.');
    await h.until(() => row(h, owed.threadId)?.wake === 'owed');
    expect(row(h, owed.threadId)).toMatchObject({ afterRunId: parentRun, endStatus: 'completed' });

    // Baton stops watching (it dies): the parent's run ends, and so does the second task, unseen.
    stopWatching();
    await finishTurn(h, parentId, 'Parent done.');
    await finishTurn(h, missed.threadId, 'Second result.');
    expect(row(h, owed.threadId)?.wake).toBe('owed');
    expect(row(h, missed.threadId)).toMatchObject({ wake: 'awaiting_end', endStatus: null });
    expect(wakes(h, parentId)).toEqual([]);

    // The next Baton: the wake-up owed goes at once (the parent is idle); the missed end is
    // recorded, and its wake-up is owed after that wake-up run.
    const next = h.restart();
    stopWatching = watchDelegatedTasks(next.runtime);
    await next.until(() => wakes(next, parentId).length === 1 && row(next, missed.threadId)?.endStatus !== null);
    const [first] = wakes(next, parentId);
    expect(first).toMatchObject({ origin: { kind: 'task_wake', taskId: owed.threadId, status: 'completed' } });
    expect(next.effect('provider.turn.start', parentId).payload.text).toContain('First result.');
    expect(row(next, missed.threadId)).toMatchObject({ wake: 'owed', afterRunId: first!.id, endStatus: 'completed' });
    await finishTurn(next, parentId, 'Noted.');
    await next.until(() => wakes(next, parentId).length === 2);
    expect(next.effect('provider.turn.start', parentId).payload.text).toContain('Second result.');
    stopWatching();

    // Another restart finds every wake-up given: nothing is queued again.
    const again = next.restart();
    stopWatching = watchDelegatedTasks(again.runtime);
    await again.runtime.settle();
    expect(wakes(again, parentId).map((r) => (r.origin?.kind === 'task_wake' ? r.origin.taskId : null))).toEqual([
      owed.threadId,
      missed.threadId,
    ]);
    expect([row(again, owed.threadId)?.wake, row(again, missed.threadId)?.wake]).toEqual(['queued', 'queued']);
    stopWatching();
  });
});
