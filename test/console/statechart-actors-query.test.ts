import { describe, expect, it } from 'vitest';
import { ActorsResult } from '../../src/server/actor-states.js';
import { useBatons } from '../support/baton-app.js';
import { tempDir } from '../support/temp.js';
import { ThreadClient } from '../support/thread-client.js';

// The `actors` query the statechart viewer reads: a real Baton (the real Codex against the
// scripted model), over the public Socket.IO API.

const { baton, client, onCleanup } = useBatons();

const workspace = () => {
  const ws = tempDir('baton-actors-ws-');
  onCleanup(ws.cleanup);
  return ws.dir;
};

describe('the actors query', () => {
  it('answers each persisted actor of a thread with its state, in the order they were made, and only newer rows since a sequence', async () => {
    const app = await baton();
    const c = await client(app);
    const actors = async (q: Record<string, unknown>) => {
      const answer = await c.query({ type: 'actors', ...q });
      expect(answer.ok).toBe(true);
      return ActorsResult.parse(answer.result);
    };
    const created = await c.command('thread.create', { cwd: workspace() });
    if (!created.ok) throw new Error(created.error.message);
    const threadId = (created.result as { threadId: string }).threadId;
    const t = await ThreadClient.open(app.url, app.token, threadId);
    onCleanup(() => t.client.close());

    const fresh = await actors({ threadId });
    // A new thread: its supervisor, and the provider thread it will run on, not loaded yet.
    expect(fresh.actors.map((a) => [a.kind, a.state])).toEqual([
      ['thread_supervisor', { active: 'idle' }],
      ['provider_thread', 'not_loaded'],
    ]);
    expect(fresh.actors[0]!.id).toBe(threadId);
    expect(fresh.actors[0]).toMatchObject({ machineId: 'threadSupervisor', machineVersion: 3, status: 'active' });

    const first = await t.send('hello');
    expect(await t.ended(first)).toBe('completed');
    const after = await actors({ threadId });
    const byId = new Map(after.actors.map((a) => [a.id, a]));
    expect(after.actors[0]!.kind).toBe('thread_supervisor');
    expect(byId.get(first)).toMatchObject({ kind: 'run', machineId: 'run', state: 'completed' });
    const kinds = new Set(after.actors.map((a) => a.kind));
    for (const kind of ['run_attempt', 'execution_node', 'provider_session', 'provider_thread'])
      expect(kinds).toContain(kind);
    // An attempt ends in a final state: its actor is done.
    expect(after.actors.find((a) => a.kind === 'run_attempt')).toMatchObject({ state: 'completed', status: 'done' });
    expect(after.sequence).toBe(app.runtime.store.lastSequence());

    // Since a sequence: the rows written at or after it, so a reader asking from its last read misses none.
    const second = await t.send('again');
    expect(await t.ended(second)).toBe('completed');
    const since = await actors({ threadId, sinceSequence: after.sequence });
    const all = await actors({ threadId });
    expect(since.actors.map((a) => a.id)).toEqual(
      all.actors.filter((a) => a.lastSequence >= after.sequence).map((a) => a.id),
    );
    expect(since.actors.map((a) => a.id)).toContain(second);
    // The first run's nodes were last written before: they are not read again.
    expect(since.actors.length).toBeLessThan(all.actors.length);
  });

  it('refuses an unknown thread not_found, and a malformed query invalid_payload', async () => {
    const app = await baton();
    const c = await client(app);
    expect(await c.query({ type: 'actors', threadId: 'thr_nobody' })).toMatchObject({
      ok: false,
      error: { code: 'not_found', details: { threadId: 'thr_nobody' } },
    });
    expect(await c.query({ type: 'actors', threadId: 'not an id!' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_payload' },
    });
    expect(await c.query({ type: 'actors', threadId: 'thr_x', sinceSequence: -1 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_payload' },
    });
  });
});
