import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { BatonClient } from '../../src/client/baton-client.js';
import { ThreadId } from '../../src/domain/ids.js';
import type { Runtime } from '../../src/actors/runtime.js';
import { BatonServer } from '../../src/server/server.js';
import { useRuntime } from '../support/runtime.js';

/**
 * A typed client whose Baton comes back as another one (a data dir started afresh on the
 * same port): its subscriptions cannot resume where they were, and say so instead of
 * waiting, silently, for events that will never be theirs.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const token = 'resume-lost-token-0123456789';

async function serve(runtime: Runtime, port = 0): Promise<{ port: number; close: () => Promise<void> }> {
  const server = new BatonServer({ runtime, host: '127.0.0.1', port, token, logger: pino({ level: 'silent' }) });
  const address = await server.listen();
  let closed = false;
  const close = async () => {
    if (!closed) await server.close();
    closed = true;
  };
  cleanups.push(close);
  return { port: address.port, close };
}

describe('a subscription that cannot resume', () => {
  const harness = useRuntime();

  it('is lost, and says why, when the Baton it reconnects to never wrote what it saw', async () => {
    const first = harness();
    const threadId = ThreadId.parse(await first.thread());
    const a = await serve(first.runtime);
    const client = await BatonClient.connect(`http://127.0.0.1:${a.port}`, token);
    cleanups.push(() => client.close());

    let lostWith: Error | null = null;
    let resolveLost = () => undefined as void;
    const lost = new Promise<void>((resolve) => (resolveLost = resolve));
    await client.subscribe(
      { stream: 'threads' },
      () => undefined,
      (error) => {
        lostWith = error;
        resolveLost();
      },
    );
    const seen = new Promise<number>((resolve) =>
      client.socket.once('stream', (m: { sequence: number }) => resolve(m.sequence)),
    );
    await first.command({ type: 'thread.settings.update', threadId, title: 'seen by the client' });
    expect(await seen).toBeGreaterThan(0);

    // Another Baton, with a log of its own that has not reached that sequence, on the same
    // port; the client connects again (after a server's own disconnect Socket.IO waits to be told).
    const gone = new Promise<void>((resolve) => client.socket.once('disconnect', () => resolve()));
    await a.close();
    await gone;
    const second = harness();
    await serve(second.runtime, a.port);
    client.socket.connect();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      lost,
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error('the subscription was not lost')), 20_000)),
      ),
    ]).finally(() => clearTimeout(timer));
    expect(String(lostWith)).toMatch(/not_found: afterSequence \d+ is past the end/);
  });
});
