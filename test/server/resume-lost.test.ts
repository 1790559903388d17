import { describe, expect, it } from 'vitest';
import { BatonClient } from '../../src/client/baton-client.js';
import { ThreadId } from '../../src/domain/ids.js';
import { useRuntime } from '../support/runtime.js';
import { runtimeServerToken, useRuntimeServer } from '../support/runtime-server.js';
import { within } from '../support/within.js';

/**
 * A typed client whose Baton comes back as another one (a data dir started afresh on the
 * same port): its subscriptions cannot resume where they were, and say so instead of
 * waiting, silently, for events that will never be theirs.
 */
const { start, onCleanup } = useRuntimeServer();

describe('a subscription that cannot resume', () => {
  const harness = useRuntime();

  it('is lost, and says why, when the Baton it reconnects to never wrote what it saw', async () => {
    const first = harness();
    const threadId = ThreadId.parse(await first.thread());
    const a = await start(first.runtime);
    const client = await BatonClient.connect(a.url, runtimeServerToken);
    onCleanup(() => client.close());

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
    await start(second.runtime, { port: a.port });
    client.socket.connect();
    await within(lost, 20_000, 'the subscription was not lost');
    expect(String(lostWith)).toMatch(/not_found: afterSequence \d+ is past the end/);
  });
});
