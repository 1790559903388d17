import { describe, expect, it } from 'vitest';
import { io } from 'socket.io-client';
import type { DomainEvent } from '../../src/domain/events.js';
import { useBatons } from '../support/baton-app.js';
import { tempDir } from '../support/temp.js';
import { ok } from '../support/thread-client.js';
import type { ModelTurn } from '../../src/providers/model/scripted-model-server.js';
import { RunId, RuntimeRequestId, ThreadId } from '../../src/domain/ids.js';

/** Wakes a waiting test each time a callback sees something; no polling, no sleeping. */
function watcher() {
  let check: () => void = () => undefined;
  return {
    notify: () => check(),
    until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('condition not reached in time')), timeoutMs);
        check = () => {
          if (condition()) {
            clearTimeout(timer);
            resolve();
          }
        };
        check();
      });
    },
  };
}

const { baton, client, onCleanup } = useBatons();

function refusal(url: string, auth?: Record<string, unknown>): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = io(url, { transports: ['websocket'], reconnection: false, ...(auth ? { auth } : {}) });
    s.on('connect', () => (s.close(), reject(new Error('connected without a valid token'))));
    s.on('connect_error', (e) => (s.close(), resolve(e.message)));
  });
}

const workspace = () => {
  const ws = tempDir('baton-api-ws-');
  onCleanup(ws.cleanup);
  return ws.dir;
};

describe('Socket.IO API', () => {
  it('refuses a connection with no token or a wrong token; /healthz answers', async () => {
    const app = await baton();
    expect(await refusal(app.url)).toMatch(/unauthorized/);
    expect(await refusal(app.url, { token: 'nope' })).toMatch(/unauthorized/);
    const health = (await (await fetch(`${app.url}/healthz`)).json()) as { ok: boolean };
    expect(health.ok).toBe(true);
  });

  it('answers malformed and unknown commands with typed errors and changes nothing', async () => {
    const app = await baton();
    const c = await client(app);
    const before = app.runtime.store.lastSequence();
    expect(await c.socket.emitWithAck('command', { commandId: 'c1', type: 'thread.create' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_command' },
    });
    expect(await c.socket.emitWithAck('command', { commandId: 'c2', type: 'thread.levitate' })).toMatchObject({
      ok: false,
      error: { code: 'unknown_command_type' },
    });
    expect(await c.socket.emitWithAck('command', 'not even an object')).toMatchObject({
      ok: false,
      error: { code: 'invalid_command' },
    });
    expect(await c.command('run.interrupt', { runId: RunId.parse('run_nope') })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await c.socket.emitWithAck('subscribe', { stream: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_payload' },
    });
    expect(app.runtime.store.lastSequence()).toBe(before);
  });

  it('an ACP thread naming an agent Baton does not run, or none, is refused at the command, and nothing is stored', async () => {
    const app = await baton();
    const c = await client(app);
    const before = app.runtime.store.lastSequence();
    expect(
      await c.command('thread.create', { cwd: workspace(), provider: 'acp', acpAgent: 'no-such-agent' }),
    ).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_payload',
        message: expect.stringMatching(
          /no-such-agent.*claude-agent-acp.*codex-acp|no-such-agent.*codex-acp.*claude-agent-acp/,
        ),
      },
    });
    expect(await c.command('thread.create', { cwd: workspace(), provider: 'acp' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_command' },
    });
    expect(app.runtime.store.lastSequence()).toBe(before);
    expect(app.runtime.store.projections.list('threads')).toEqual([]);
  });

  it('a Claude thread answers through the real Claude agent and the offline Messages-API model, streamed', async () => {
    const app = await baton();
    const c = await client(app);
    const threadId = ok<{ threadId: string }>(
      await c.command('thread.create', { cwd: workspace(), provider: 'claude' }),
    ).threadId;
    const events: DomainEvent[] = [];
    const w = watcher();
    await c.subscribe({ stream: 'thread', threadId: ThreadId.parse(threadId) }, (e) => (events.push(e), w.notify()));
    const runId = ok<{ runId: string }>(
      await c.command('thread.message.send', { threadId: ThreadId.parse(threadId), text: 'hello claude' }),
    ).runId;
    await w.until(() =>
      events.some((e) => e.type === 'run.terminal' && (e.payload as { runId: string }).runId === runId),
    );
    const snapshot = (await c.query({ type: 'snapshot', request: { stream: 'thread', threadId } })) as {
      result: {
        snapshot: { runs: { status: string; provider: string }[]; turnItems: { kind: string; text: string }[] };
      };
    };
    const snap = snapshot.result.snapshot;
    expect(snap.runs.map((r) => [r.provider, r.status])).toEqual([['claude', 'completed']]);
    expect(snap.turnItems.filter((i) => i.kind === 'assistant_message').map((i) => i.text)).toEqual([
      '(offline scripted model) I received: hello claude',
    ]);
    expect(events.filter((e) => e.type === 'message.delta').length).toBeGreaterThan(1);
  }, 60_000);

  it('returns the first receipt for a duplicate commandId and starts no second provider turn', async () => {
    const app = await baton();
    const c = await client(app);
    const created = await c.command('thread.create', { cwd: workspace() });
    const threadId = ok<{ threadId: string }>(created).threadId;
    const first = await c.command('thread.message.send', {
      commandId: 'cmd_same',
      threadId: ThreadId.parse(threadId),
      text: 'once',
    });
    const second = await c.command('thread.message.send', {
      commandId: 'cmd_same',
      threadId: ThreadId.parse(threadId),
      text: 'twice?',
    });
    expect(second).toEqual(first);
    expect(app.runtime.store.outbox.list({ threadId }).filter((e) => e.kind === 'provider.turn.start')).toHaveLength(1);
  });

  it('gives a subscriber the snapshot, then every later event once, in order, while other clients write', async () => {
    const app = await baton();
    const writerA = await client(app);
    const writerB = await client(app);
    const reader = await client(app);
    const seen: number[] = [];
    const w = watcher();
    const { snapshotSequence } = await reader.subscribe(
      { stream: 'threads' },
      (_e, sequence) => (seen.push(sequence), w.notify()),
    );
    const ws = workspace();
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => writerA.command('thread.create', { cwd: ws, title: `a${i}` })),
      ...Array.from({ length: 10 }, (_, i) => writerB.command('thread.create', { cwd: ws, title: `b${i}` })),
    ]);
    const last = app.runtime.store.lastSequence();
    const expected = app.runtime.store.events
      .readAfter(snapshotSequence)
      .filter((e) => e.type.startsWith('thread.') || e.type.startsWith('run.'))
      .map((e) => e.sequence);
    await w.until(() => seen.length >= expected.length);
    expect(seen).toEqual(expected);
    expect(seen.every((s) => s > snapshotSequence && s <= last)).toBe(true);
  });

  it('a client that disconnects mid-stream and resubscribes with afterSequence misses nothing', async () => {
    const app = await baton();
    const writer = await client(app);
    const reader = await client(app);
    const seen: number[] = [];
    const w = watcher();
    const { subscription, snapshotSequence } = await reader.subscribe(
      { stream: 'threads' },
      (_e, sequence) => (seen.push(sequence), w.notify()),
    );
    const ws = workspace();
    for (let i = 0; i < 5; i++) await writer.command('thread.create', { cwd: ws, title: `before ${i}` });
    await w.until(() => seen.length > 0);
    // Drop the connection; write while the reader is away; the client reconnects and resubscribes.
    const reconnected = new Promise<void>((resolve) => reader.socket.io.once('reconnect', () => resolve()));
    reader.socket.io.engine.close();
    for (let i = 0; i < 5; i++) await writer.command('thread.create', { cwd: ws, title: `during ${i}` });
    await reconnected;
    for (let i = 0; i < 5; i++) await writer.command('thread.create', { cwd: ws, title: `after ${i}` });
    const expected = app.runtime.store.events
      .readAfter(snapshotSequence)
      .filter((e) => e.type.startsWith('thread.'))
      .map((e) => e.sequence);
    await w.until(() => seen.length >= expected.length);
    expect(seen).toEqual(expected);
    expect(subscription.lastSequence).toBe(expected.at(-1));
  });

  it('serves the graph, requests and sessions streams: snapshot, then their events', async () => {
    const script: ModelTurn[] = [
      { kind: 'exec', command: 'echo ok', escalated: true },
      { kind: 'text', text: 'Done.' },
    ];
    const app = await baton((_r, i) => script[i] ?? { kind: 'text', text: 'more' });
    const c = await client(app);
    const threadId = ok<{ threadId: string }>(await c.command('thread.create', { cwd: workspace() })).threadId;
    const got: Record<string, string[]> = { graph: [], requests: [], sessions: [] };
    const w = watcher();
    const subs = await Promise.all([
      c.subscribe(
        { stream: 'graph', threadId: ThreadId.parse(threadId) },
        (e) => (got.graph!.push(e.type), w.notify()),
      ),
      c.subscribe({ stream: 'requests' }, (e) => (got.requests!.push(e.type), w.notify())),
      c.subscribe({ stream: 'sessions' }, (e) => (got.sessions!.push(e.type), w.notify())),
    ]);
    expect(subs.map((s) => s.snapshot)).toEqual([{ nodes: [], runs: [] }, { requests: [] }, { sessions: [] }]);
    await c.command('thread.message.send', { threadId: ThreadId.parse(threadId), text: 'run it' });
    await w.until(() => got.requests!.includes('runtime-request.opened'));
    const pending = (await c.query({ type: 'snapshot', request: { stream: 'requests' } })) as {
      result: { snapshot: { requests: { id: string }[] } };
    };
    expect(pending.result.snapshot.requests).toHaveLength(1);
    await c.command('runtime-request.respond', {
      requestId: RuntimeRequestId.parse(pending.result.snapshot.requests[0]!.id),
      decision: 'accept',
    });
    await w.until(() => got.requests!.includes('runtime-request.resolved') && got.graph!.includes('run.terminal'));
    expect(got.graph).toEqual(
      expect.arrayContaining(['node.created', 'node.status-changed', 'attempt.created', 'run.status-changed']),
    );
    expect(got.graph!.every((t) => /^(node|attempt|run|provider-thread)\./.test(t))).toBe(true);
    expect(got.sessions).toContain('provider-session.changed');
    for (const { subscription } of subs) await subscription.close();
  }, 60_000);

  it('a subscriber that vanishes mid-stream blocks neither the runtime nor the other subscribers', async () => {
    const app = await baton();
    const writer = await client(app);
    const steady = await client(app);
    const seen: number[] = [];
    const w = watcher();
    const { snapshotSequence } = await steady.subscribe(
      { stream: 'threads' },
      (_e, sequence) => (seen.push(sequence), w.notify()),
    );
    const gone = io(app.url, { transports: ['websocket'], reconnection: false, auth: { token: app.token } });
    await new Promise<void>((resolve) => gone.once('connect', () => resolve()));
    expect(await gone.emitWithAck('subscribe', { stream: 'threads' })).toMatchObject({ ok: true });
    const ws = workspace();
    await writer.command('thread.create', { cwd: ws });
    gone.io.engine.close(); // the connection drops without a goodbye
    for (let i = 0; i < 20; i++)
      expect(await writer.command('thread.create', { cwd: ws, title: `t${i}` })).toMatchObject({ ok: true });
    const expected = app.runtime.store.events
      .readAfter(snapshotSequence)
      .filter((e) => e.type.startsWith('thread.'))
      .map((e) => e.sequence);
    await w.until(() => seen.length >= expected.length);
    expect(seen).toEqual(expected);
  });

  it('a full conversation with the real Codex: create, send, approve, interrupt, rollback', async () => {
    const script: ModelTurn[] = [
      { kind: 'text', text: 'Hello there.' },
      { kind: 'exec', command: 'echo made-by-codex > made.txt', escalated: true },
      { kind: 'text', text: 'Made it.' },
      { kind: 'hang' },
    ];
    const app = await baton((_request, index) => script[index] ?? { kind: 'text', text: 'more' });
    const c = await client(app);
    const ws = workspace();
    const threadId = ok<{ threadId: string }>(await c.command('thread.create', { cwd: ws })).threadId;
    const events: DomainEvent[] = [];
    const w = watcher();
    await c.subscribe({ stream: 'thread', threadId: ThreadId.parse(threadId) }, (e) => (events.push(e), w.notify()));
    const send = async (text: string) =>
      ok<{ runId: string }>(await c.command('thread.message.send', { threadId: ThreadId.parse(threadId), text })).runId;
    const ended = (runId: string) =>
      w.until(() => events.some((e) => e.type === 'run.terminal' && (e.payload as { runId: string }).runId === runId));

    const one = await send('hello');
    await ended(one);
    const two = await send('make a file');
    await w.until(() => events.some((e) => e.type === 'runtime-request.opened'));
    const request = events.find((e) => e.type === 'runtime-request.opened')!.payload as { request: { id: string } };
    expect(
      await c.command('runtime-request.respond', {
        requestId: RuntimeRequestId.parse(request.request.id),
        decision: 'accept',
      }),
    ).toMatchObject({ ok: true });
    await ended(two);
    const three = await send('take your time');
    await w.until(() =>
      events.some(
        (e) =>
          e.type === 'run.status-changed' &&
          (e.payload as { runId: string; to: string }).runId === three &&
          (e.payload as { to: string }).to === 'running',
      ),
    );
    expect(await c.command('run.interrupt', { runId: RunId.parse(three) })).toMatchObject({ ok: true });
    await ended(three);
    expect(await c.command('rollback.toRun', { threadId: ThreadId.parse(threadId), runOrdinal: 1 })).toMatchObject({
      ok: true,
    });

    const snapshot = (await c.query({ type: 'snapshot', request: { stream: 'thread', threadId } })) as {
      result: {
        snapshot: {
          runs: { ordinal: number; status: string }[];
          turnItems: { kind: string; text: string }[];
          checkpoints: { runOrdinal: number; status: string }[];
          pendingRequests: unknown[];
        };
      };
    };
    const snap = snapshot.result.snapshot;
    expect(snap.runs.map((r) => [r.ordinal, r.status])).toEqual([
      [1, 'completed'],
      [2, 'rolled_back'],
      [3, 'rolled_back'],
    ]);
    expect(snap.turnItems.filter((i) => i.kind === 'assistant_message').map((i) => i.text)).toEqual([
      'Hello there.',
      'Made it.',
    ]);
    expect(snap.checkpoints.filter((k) => k.runOrdinal >= 2).map((k) => k.status)).toEqual(['stale', 'stale']);
    expect(snap.pendingRequests).toEqual([]);
  }, 60_000);
});
