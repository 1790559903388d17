import { describe, expect, it } from 'vitest';
import { BatonClient } from '../../src/client/baton-client.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { ThreadId } from '../../src/domain/ids.js';
import { useRuntime } from '../support/runtime.js';
import { runtimeServerToken, useRuntimeServer } from '../support/runtime-server.js';

const { serve, onCleanup } = useRuntimeServer();
const token = runtimeServerToken;

/** The events a subscription delivers, and a promise for when it has delivered `count`. */
function collector() {
  const events: DomainEvent[] = [];
  let wake = () => undefined as void;
  return {
    events,
    onEvent: (event: DomainEvent) => {
      events.push(event);
      wake();
    },
    reached: (count: number) =>
      new Promise<void>((resolve) => {
        wake = () => (events.length >= count ? resolve() : undefined);
        wake();
      }),
  };
}

describe('commands and subscriptions on the API', () => {
  const harness = useRuntime();

  it("ack a command after the caller's own subscriptions have its events; every subscriber sees each event once, in commit order", async () => {
    const h = harness();
    const url = await serve(h.runtime);

    const threadId = ThreadId.parse(await h.thread());
    await h.command({ type: 'thread.message.send', threadId, text: 'stream while settings change' });
    const { runId, rootNodeId } = h.turn(threadId);

    const caller = await BatonClient.connect(url, token);
    const watcher = await BatonClient.connect(url, token);
    onCleanup(() => caller.close());
    onCleanup(() => watcher.close());
    const callerSeen = collector();
    const watcherSeen = collector();
    const { snapshotSequence } = await caller.subscribe({ stream: 'thread', threadId }, callerSeen.onEvent);
    await watcher.subscribe({ stream: 'thread', threadId }, watcherSeen.onEvent);

    // Commands (whose events the server holds until they are acked) interleaved with
    // provider events (which it sends at once): none may overtake another.
    for (let i = 0; i < 20; i++) {
      const acked = caller.command('thread.settings.update', { threadId, title: `title ${i}` });
      const streamed = h.runtime.ingest({
        type: 'message.delta',
        threadId,
        runId,
        nodeId: rootNodeId,
        messageId: 'msg_interleaved',
        delta: `${i} `,
      });
      const ack = await acked;
      expect(ack.ok).toBe(true);
      const own = callerSeen.events.find(
        (e) =>
          e.type === 'thread.settings-updated' &&
          (e.payload as { changes: { title?: string } }).changes.title === `title ${i}`,
      );
      expect(own, `the caller's subscription had "title ${i}" before its ack`).toBeDefined();
      expect((await streamed).ok).toBe(true);
    }

    const committed = h.store.events.readThreadAfter(threadId, snapshotSequence, 10_000).map((e) => e.sequence);
    await Promise.all([callerSeen.reached(committed.length), watcherSeen.reached(committed.length)]);
    expect(callerSeen.events.map((e) => e.sequence)).toEqual(committed);
    expect(watcherSeen.events.map((e) => e.sequence)).toEqual(committed);
  });
});
