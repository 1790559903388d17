import { describe, expect, it } from 'vitest';
import { BatonClient } from '../../src/client/baton-client.js';
import { ThreadId } from '../../src/domain/ids.js';
import { useRuntime, type Harness } from '../support/runtime.js';
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

  /** A client subscribed to the first Baton, which has seen one event of its own. */
  async function subscribedTo(first: Harness) {
    const threadId = ThreadId.parse(await first.thread());
    const a = await start(first.runtime);
    const client = await BatonClient.connect(a.url, runtimeServerToken);
    onCleanup(() => client.close());
    let lostWith: Error | null = null;
    let resolveLost = () => undefined as void;
    const lost = new Promise<void>((resolve) => (resolveLost = resolve));
    const { subscription } = await client.subscribe(
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
    expect(subscription.logId).toBe(first.store.events.id);
    return {
      subscription,
      /** The first Baton goes, another starts on its port, and the client connects to it. */
      async reconnectTo(second: Harness): Promise<Error> {
        // After a server's own disconnect Socket.IO waits to be told to connect again.
        const gone = new Promise<void>((resolve) => client.socket.once('disconnect', () => resolve()));
        await a.close();
        await gone;
        await start(second.runtime, { port: a.port });
        client.socket.connect();
        await within(lost, 20_000, 'the subscription was not lost');
        return lostWith!;
      },
    };
  }

  it('is lost, and says why, when the Baton it reconnects to never wrote what it saw', async () => {
    const first = harness();
    const { reconnectTo } = await subscribedTo(first);
    // Another Baton, with a log of its own that has not reached that sequence.
    const lostWith = await reconnectTo(harness());
    expect(lostWith).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining(`logId ${first.store.events.id} is another Baton's event log`),
    });
  });

  it("is lost too when the other Baton's log has passed that sequence: the cursor names its log", async () => {
    const first = harness();
    const { subscription, reconnectTo } = await subscribedTo(first);
    const second = harness();
    const other = ThreadId.parse(await second.thread());
    while (second.store.lastSequence() <= subscription.lastSequence)
      await second.command({ type: 'thread.settings.update', threadId: other, title: "not the client's" });
    const lostWith = await reconnectTo(second);
    expect(lostWith).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining(`logId ${first.store.events.id} is another Baton's event log`),
    });
  });
});
