import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BatonClient, type CommandAck } from '../../src/client/baton-client.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { Store } from '../../src/persistence/store.js';
import { tempDir } from '../support/temp.js';
import { serveProcess } from '../support/serve-process.js';
import { isAlive, processesIn, signal } from '../support/processes.js';
import { ThreadId } from '../../src/domain/ids.js';

const token = 'shutdown-test-token-0123456789';
const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((c) => c.kill('SIGKILL')));

/** `baton serve` as a real child process; resolves with its URL once it listens. */
async function serve(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const p = await serveProcess(dataDir, { BATON_TOKEN: token, BATON_SCRIPTED_DELAY_MS: '40' });
  children.push(p.child);
  return p;
}

const ok = <R>(ack: CommandAck): R => {
  if (!ack.ok) throw new Error(`${ack.error.code}: ${ack.error.message}`);
  return ack.result as R;
};

function waitFor(
  events: DomainEvent[],
  listeners: (() => void)[],
  test: (e: DomainEvent) => boolean,
  timeoutMs = 30_000,
): Promise<DomainEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('event did not come')), timeoutMs);
    const check = () => {
      const found = events.find(test);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    listeners.push(check);
    check();
  });
}

/** A thread on `url` whose run streams: subscribed, a message sent, resolved at its first delta (the client closed). */
async function streamingRun(url: string, cwd: string): Promise<{ threadId: string; runId: string }> {
  const client = await BatonClient.connect(url, token);
  const { threadId } = ok<{ threadId: string }>(await client.command('thread.create', { cwd }));
  const events: DomainEvent[] = [];
  const listeners: (() => void)[] = [];
  await client.subscribe(
    { stream: 'thread', threadId: ThreadId.parse(threadId) },
    (e) => (events.push(e), listeners.forEach((l) => l())),
  );
  const { runId } = ok<{ runId: string }>(
    await client.command('thread.message.send', {
      threadId: ThreadId.parse(threadId),
      text: 'stream a long answer please, word by word',
    }),
  );
  await waitFor(events, listeners, (e) => e.type === 'message.delta');
  client.close();
  return { threadId, runId };
}

/** A client on `url` following a thread's events after `afterSequence`, each found by `next`. */
async function resumedThread(url: string, threadId: string, afterSequence: number) {
  const client = await BatonClient.connect(url, token);
  const after: DomainEvent[] = [];
  const wake: (() => void)[] = [];
  const { snapshotSequence } = await client.subscribe(
    { stream: 'thread', threadId: ThreadId.parse(threadId), afterSequence },
    (e) => (after.push(e), wake.forEach((l) => l())),
  );
  return { client, snapshotSequence, next: (test: (e: DomainEvent) => boolean) => waitFor(after, wake, test) };
}

describe('graceful shutdown', () => {
  it('SIGTERM during a streaming run leaves the store consistent, and the next start recovers the thread', async () => {
    const data = tempDir('baton-sigterm-');
    const ws = tempDir('baton-sigterm-ws-');
    try {
      const first = await serve(data.dir);
      const { threadId, runId } = await streamingRun(first.url, ws.dir);

      const exited = new Promise<number | null>((resolve) => first.child.once('exit', (code) => resolve(code)));
      first.child.kill('SIGTERM');
      expect(await exited).toBe(0);

      const store = Store.open(join(data.dir, 'baton.sqlite'));
      expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
      const sequences = store.events.readAfter(0, 100_000).map((e) => e.sequence);
      expect(sequences).toEqual(sequences.map((_, i) => i + 1));
      expect(store.projections.get('runs', runId)!.status).toBe('running');
      store.close();

      const second = await serve(data.dir);
      const {
        client: c2,
        snapshotSequence,
        next: nextEvent,
      } = await resumedThread(second.url, threadId, sequences.at(-1)!);
      expect(snapshotSequence).toBe(sequences.at(-1));
      const terminal = await nextEvent((e) => e.type === 'run.terminal');
      expect(terminal.payload).toMatchObject({ runId, status: 'interrupted' });
      const next = ok<{ runId: string }>(
        await c2.command('thread.message.send', { threadId: ThreadId.parse(threadId), text: 'and again' }),
      );
      const done = await nextEvent(
        (e) => e.type === 'run.terminal' && (e.payload as { runId: string }).runId === next.runId,
      );
      expect(done.payload).toMatchObject({ status: 'completed' });
      c2.close();
      // Cleanup waits for Baton (and its agents) to be gone: a dying Codex may still write its home.
      const gone = new Promise<number | null>((resolve) => second.child.once('exit', (code) => resolve(code)));
      second.child.kill('SIGTERM');
      expect(await gone).toBe(0);
    } finally {
      data.cleanup();
      ws.cleanup();
    }
  }, 90_000);

  it('SIGTERM with a Codex that takes no notice of it (frozen mid-turn): Baton still exits, and kills it first', async () => {
    const data = tempDir('baton-sigterm-frozen-');
    const ws = tempDir('baton-sigterm-frozen-ws-');
    const frozen: number[] = [];
    try {
      const baton = await serve(data.dir);
      await streamingRun(baton.url, ws.dir);
      frozen.push(...processesIn(['codex'], ws.dir));
      expect(frozen).toHaveLength(1);
      frozen.forEach((pid) => signal(pid, 'SIGSTOP'));

      const exited = new Promise<number | null>((resolve) => baton.child.once('exit', (code) => resolve(code)));
      baton.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // Gone before Baton exited: SIGKILLed once its 5 s grace had passed.
      expect(frozen.filter(isAlive)).toEqual([]);
    } finally {
      frozen.forEach((pid) => signal(pid, 'SIGKILL'));
      data.cleanup();
      ws.cleanup();
    }
  }, 60_000);

  it('a second signal during a shutdown that waits (a frozen Codex) exits at once, as a kill would, and the next start recovers', async () => {
    const data = tempDir('baton-second-signal-');
    const ws = tempDir('baton-second-signal-ws-');
    const frozen: number[] = [];
    try {
      const p = await serveProcess(data.dir, {
        BATON_TOKEN: token,
        BATON_SCRIPTED_DELAY_MS: '40',
        BATON_LOG_LEVEL: 'info',
      });
      children.push(p.child);
      const { threadId, runId } = await streamingRun(p.url, ws.dir);
      frozen.push(...processesIn(['codex'], ws.dir));
      expect(frozen).toHaveLength(1);
      frozen.forEach((pid) => signal(pid, 'SIGSTOP'));

      const exited = new Promise<number | null>((resolve) => p.child.once('exit', (code) => resolve(code)));
      const logged = (line: string) =>
        new Promise<void>((resolve) => {
          const look = () => p.stderr().includes(line) && (p.child.stderr!.off('data', look), resolve());
          p.child.stderr!.on('data', look);
          look();
        });
      p.child.kill('SIGTERM');
      // The graceful shutdown waits 5 s for the frozen Codex before it SIGKILLs it, then exits 0.
      await logged('"msg":"shutting down"');
      p.child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(p.stderr()).toContain('second signal: exiting without waiting for the shutdown');
      expect(p.stderr()).not.toContain('"msg":"stopped"');

      const store = Store.open(join(data.dir, 'baton.sqlite'));
      expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
      const last = store.events.lastSequence();
      expect(store.projections.get('runs', runId)!.status).toBe('running');
      store.close();
      const next = await serve(data.dir);
      const { client, next: nextEvent } = await resumedThread(next.url, threadId, last);
      const terminal = await nextEvent((e) => e.type === 'run.terminal');
      expect(terminal.payload).toMatchObject({ runId, status: 'interrupted' });
      client.close();
      const gone = new Promise<number | null>((resolve) => next.child.once('exit', (code) => resolve(code)));
      next.child.kill('SIGTERM');
      expect(await gone).toBe(0);
    } finally {
      frozen.forEach((pid) => signal(pid, 'SIGKILL'));
      data.cleanup();
      ws.cleanup();
    }
  }, 60_000);
});
