import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Runtime } from '../../src/actors/runtime.js';
import { idOf, idPrefixes, type IdFamily, type IdOf } from '../../src/domain/ids.js';
import { ManualClock, type IdSource } from '../../src/domain/sources.js';
import { projectionNames } from '../../src/domain/projections.js';
import { Store } from '../../src/persistence/store.js';
import { tempDir } from '../support/temp.js';
import { codexRegistry } from '../support/providers.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/**
 * Ids of every family in the thread id format (`thr_...`), as an IdSource may make them:
 * what keeps a thread id off another entity must be a check, not the prefixes.
 */
class ThreadShapedIds implements IdSource {
  private n = 0;
  constructor(private readonly salt: string) {}
  next<F extends IdFamily>(family: F): IdOf[F] {
    return idOf(family, `thr_${idPrefixes[family]}_${this.salt}${++this.n}`);
  }
}

function open() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const workspace = join(t.dir, 'ws');
  mkdirSync(workspace);
  const path = join(t.dir, 'baton.sqlite');
  const clock = new ManualClock();
  let starts = 0;
  const start = () => {
    const store = Store.open(path, { clock });
    cleanups.unshift(() => store.close());
    return new Runtime({ store, providers: codexRegistry(), clock, ids: new ThreadShapedIds(`s${++starts}_`) });
  };
  return { start, workspace };
}

/** Every stored fact: the entity rows, every projection, the event log. */
function facts(store: Store) {
  return {
    entities: store.db.prepare('SELECT entity_id, kind, thread_id, snapshot FROM entities ORDER BY entity_id').all(),
    projections: projectionNames.map((p) => store.projections.list(p)),
    sequence: store.lastSequence(),
  };
}

const ok = <T>(ack: { ok: boolean; result?: unknown }): T => {
  expect(ack).toMatchObject({ ok: true });
  return ack.result as T;
};

describe('a client-chosen thread id never overwrites another entity', () => {
  it('thread.create and thread.fork with the id of a run, provider thread, node, message or request are a conflict; the thread survives a restart', async () => {
    const { start, workspace } = open();
    let runtime = start();
    const threadId = ok<{ threadId: string }>(
      await runtime.dispatch({ commandId: 'c_create', type: 'thread.create', threadId: 'thr_main', cwd: workspace }),
    ).threadId;
    const sent = ok<{ runId: string; messageId: string }>(
      await runtime.dispatch({ commandId: 'c_send', type: 'thread.message.send', threadId, text: 'hello' }),
    );
    const turn = runtime.store.outbox.list({ threadId }).find((e) => e.kind === 'provider.turn.start')!;
    const { attemptId, rootNodeId } = turn.payload as { attemptId: string; rootNodeId: string };
    expect(
      (
        await runtime.ingest({
          type: 'turn.started',
          threadId,
          runId: sent.runId,
          attemptId,
          nodeId: rootNodeId,
          nativeTurnRef: 'turn-1',
        })
      ).ok,
    ).toBe(true);
    expect(
      (
        await runtime.ingest({
          type: 'request.opened',
          threadId,
          runId: sent.runId,
          requestId: 'thr_request',
          nodeId: 'thr_request_node',
          parentNodeId: rootNodeId,
          kind: 'command',
          prompt: 'ok?',
          details: {},
          providerSessionId: 'thr_psess',
        })
      ).ok,
    ).toBe(true);
    const providerThreadId = runtime.store.projections.get('threads', threadId)!.activeProviderThreadId as string;
    expect(runtime.store.entities.get(providerThreadId)).toMatchObject({ kind: 'provider_thread', threadId });

    const taken = {
      run: sent.runId,
      providerThread: providerThreadId,
      node: rootNodeId,
      message: sent.messageId,
      request: 'thr_request',
      requestNode: 'thr_request_node',
      attempt: attemptId,
    };
    const before = facts(runtime.store);
    let n = 0;
    for (const [what, id] of Object.entries(taken)) {
      const create = await runtime.dispatch({
        commandId: `c_dup_create_${++n}`,
        type: 'thread.create',
        threadId: id,
        cwd: workspace,
      });
      expect(create, `thread.create over the ${what}`).toMatchObject({ ok: false, error: { code: 'conflict' } });
      const fork = await runtime.dispatch({
        commandId: `c_dup_fork_${n}`,
        type: 'thread.fork',
        sourceThreadId: threadId,
        source: { type: 'run', threadId, runId: sent.runId },
        threadId: id,
      });
      expect(fork, `thread.fork over the ${what}`).toMatchObject({ ok: false, error: { code: 'conflict' } });
    }
    expect(facts(runtime.store)).toEqual(before);

    // A restart reads the rows back: the thread's conversation is all there and goes on.
    runtime.store.close();
    runtime = start();
    expect(facts(runtime.store)).toEqual(before);
    expect(runtime.store.projections.list('messages', threadId).map((m) => m.id)).toContain(sent.messageId);
    expect(
      await runtime.dispatch({
        commandId: 'c_answer',
        type: 'runtime-request.respond',
        requestId: 'thr_request',
        decision: 'accept',
      }),
    ).toMatchObject({ ok: true });
  });

  it('a client thread id must be in the thread id format', async () => {
    const { start, workspace } = open();
    const runtime = start();
    for (const threadId of ['run_1', 'pthr_1', 'thread1', 'thr_']) {
      expect(
        await runtime.dispatch({ commandId: `c_${threadId}`, type: 'thread.create', threadId, cwd: workspace }),
        threadId,
      ).toMatchObject({ ok: false, error: { code: 'invalid_command' } });
    }
    expect(runtime.store.lastSequence()).toBe(0);
    expect(runtime.store.entities.count()).toBe(0);
  });

  it('the store refuses an entity row over one of another kind or thread, and writes nothing of that unit', () => {
    const { start } = open();
    const { store } = start();
    const row = (entityId: string, kind: 'run' | 'thread_supervisor', threadId: string) => ({
      entityId,
      kind,
      threadId,
      machineId: kind,
      machineVersion: 1,
      snapshot: { value: kind },
    });
    store.commit({ snapshots: [row('thr_x_run', 'run', 'thr_x')] });
    const before = facts(store);
    expect(() => store.commit({ snapshots: [row('thr_x_run', 'thread_supervisor', 'thr_x_run')] })).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
    expect(() => store.commit({ snapshots: [row('thr_x_run', 'run', 'thr_other')] })).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
    expect(facts(store)).toEqual(before);
    // The same entity on its own thread is updated as always.
    store.commit({ snapshots: [{ ...row('thr_x_run', 'run', 'thr_x'), snapshot: { value: 'later' } }] });
    expect(store.entities.get('thr_x_run')!.snapshot).toEqual({ value: 'later' });
  });
});
