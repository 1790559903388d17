import { describe, expect, it } from 'vitest';
import { projectionNames } from '../../src/domain/projections.js';
import type { Store } from '../../src/persistence/store.js';
import { useRuntime } from '../support/runtime.js';

const open = useRuntime();

function facts(store: Store) {
  return {
    entities: store.db.prepare('SELECT entity_id, kind, thread_id, snapshot FROM entities ORDER BY entity_id').all(),
    receipts: store.db.prepare('SELECT * FROM command_receipts ORDER BY command_id').all(),
    projections: projectionNames.map((p) => store.projections.list(p)),
    sequence: store.lastSequence(),
  };
}

describe('a commandId names one command', () => {
  it('reused by a command of another type is a conflict and stores nothing; the same command resent gets its stored receipt', async () => {
    const h = open();
    const threadId = await h.thread();
    const send = { commandId: 'c_reused', type: 'thread.message.send', threadId, text: 'hello' };
    const first = await h.runtime.dispatch(send);
    expect(first).toMatchObject({ ok: true, result: { dispatched: 'started' } });
    const before = facts(h.store);

    expect(await h.runtime.dispatch(send)).toEqual(first);
    const create = await h.runtime.dispatch({
      commandId: 'c_reused',
      type: 'thread.create',
      cwd: h.store.projections.get('threads', threadId)!.workspace.cwd,
    });
    expect(create).toMatchObject({ ok: false, commandId: 'c_reused', error: { code: 'conflict' } });
    expect(JSON.stringify(create)).not.toContain('runId');
    expect(await h.runtime.dispatch({ commandId: 'c_reused', type: 'thread.stop', threadId })).toMatchObject({
      ok: false,
      error: { code: 'conflict' },
    });
    expect(facts(h.store)).toEqual(before);
    // The stored answer is unchanged by the refusals.
    expect(await h.runtime.dispatch(send)).toEqual(first);
  });

  it('reused by the same type on another thread is a conflict', async () => {
    const h = open();
    const a = await h.thread();
    const b = await h.thread();
    const first = await h.runtime.dispatch({ commandId: 'c_stop', type: 'thread.stop', threadId: a });
    expect(first).toMatchObject({ ok: true });
    const before = facts(h.store);
    expect(await h.runtime.dispatch({ commandId: 'c_stop', type: 'thread.stop', threadId: b })).toMatchObject({
      ok: false,
      error: { code: 'conflict' },
    });
    expect(facts(h.store)).toEqual(before);
    expect(await h.runtime.dispatch({ commandId: 'c_stop', type: 'thread.stop', threadId: a })).toEqual(first);
  });

  it('a refusal is a stored receipt too: reusing its commandId for another type is a conflict', async () => {
    const h = open();
    const threadId = await h.thread();
    const invalid = await h.runtime.dispatch({
      commandId: 'c_bad2',
      type: 'queued-run.reorder',
      threadId,
      order: ['run_nope'],
    });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'invalid_transition' } });
    const before = facts(h.store);
    expect(
      await h.runtime.dispatch({ commandId: 'c_bad2', type: 'thread.message.send', threadId, text: 'hi' }),
    ).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(facts(h.store)).toEqual(before);
    expect(
      await h.runtime.dispatch({ commandId: 'c_bad2', type: 'queued-run.reorder', threadId, order: ['run_nope'] }),
    ).toEqual(invalid);
  });

  it('two commands of different types racing with one commandId: one wins, the other is a conflict that stores nothing', async () => {
    const h = open();
    const a = await h.thread();
    const b = await h.thread();
    const before = facts(h.store);
    // Neither sees a receipt when it arrives: both steps run, on two threads, and commit in one group.
    const [stop, archive] = await Promise.all([
      h.runtime.dispatch({ commandId: 'c_race', type: 'thread.stop', threadId: a }),
      h.runtime.dispatch({ commandId: 'c_race', type: 'thread.archive', threadId: b }),
    ]);
    expect(stop).toMatchObject({ ok: true });
    expect(archive).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(h.store.projections.get('threads', b)).toEqual(
      before.projections[0]!.find((t) => (t as { id: string }).id === b),
    );
    expect(h.store.receipts.get('c_race')).toMatchObject({ commandType: 'thread.stop', threadId: a });
  });

  it('the same send racing itself on one thread: one run, and both get its receipt', async () => {
    const h = open();
    const threadId = await h.thread();
    const send = { commandId: 'c_twice', type: 'thread.message.send', threadId, text: 'once' };
    // Neither has a receipt when it arrives; the second waits in the mailbox while the first commits.
    const [first, second] = await Promise.all([h.runtime.dispatch(send), h.runtime.dispatch(send)]);
    expect(first).toMatchObject({ ok: true, result: { dispatched: 'started' } });
    expect(second).toEqual(first);
    expect(h.store.projections.list('runs', threadId)).toHaveLength(1);
    expect(h.store.outbox.list({ threadId }).filter((e) => e.kind === 'provider.turn.start')).toHaveLength(1);
    // Once both are done, the id is no longer in flight: a resend is answered from its receipt.
    expect(await h.runtime.dispatch(send)).toEqual(first);
  });

  it('a resent command is answered by its commit: the step it ran again is dropped, and the thread goes on from what was stored', async () => {
    const h = open();
    const threadId = await h.thread();
    const title = (text: string, commandId: string) =>
      h.runtime.dispatch({ commandId, type: 'thread.settings.update', threadId, title: text });
    const first = await title('first', 'c_first');
    expect(first).toMatchObject({ ok: true });
    expect(await title('second', 'c_second')).toMatchObject({ ok: true });
    const before = facts(h.store);
    // Resent after the thread moved on: its step runs on today's state, and its commit finds the receipt.
    expect(await title('first', 'c_first')).toEqual(first);
    expect(facts(h.store)).toEqual(before);
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ title: 'second' });
    // The thread's next command starts from the stored state (title "second"), not the dropped step's.
    const mode = { commandId: 'c_mode', type: 'thread.settings.update', threadId, interactionMode: 'plan' };
    expect(await h.runtime.dispatch(mode)).toMatchObject({ ok: true });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ title: 'second', interactionMode: 'plan' });
    const snapshots = (facts(h.store).entities as { snapshot: string }[]).map((e) => e.snapshot).join('\n');
    expect(snapshots).toContain('"title":"second"');
    expect(snapshots).not.toContain('"title":"first"');
  });

  it('a resent command whose step would now be refused still gets its stored answer, and stores nothing', async () => {
    const h = open();
    const threadId = await h.thread();
    const archive = { commandId: 'c_archive', type: 'thread.archive', threadId };
    const first = await h.runtime.dispatch(archive);
    expect(first).toMatchObject({ ok: true, result: { status: 'archived' } });
    const before = facts(h.store);
    // A second archive is an invalid transition; the resend of the first is not a second archive.
    expect(await h.runtime.dispatch({ ...archive, commandId: 'c_again' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_transition' },
    });
    const afterRefusal = facts(h.store);
    expect(afterRefusal.receipts).toHaveLength(before.receipts.length + 1);
    expect(await h.runtime.dispatch(archive)).toEqual(first);
    expect(facts(h.store)).toEqual(afterRefusal);
  });
});
