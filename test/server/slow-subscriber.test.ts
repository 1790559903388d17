import { describe, expect, it } from 'vitest';
import type { Socket as NetSocket } from 'node:net';
import type { Socket } from 'socket.io-client';
import { useRuntime } from '../support/runtime.js';
import { collectSequences, useRuntimeServer } from '../support/runtime-server.js';
import { within } from '../support/within.js';

const { serve, connect } = useRuntimeServer();

/** The client's TCP socket under Socket.IO: pausing it stops reading, as a stalled client would. */
const tcpOf = (s: Socket) => (s.io.engine.transport as unknown as { ws: { _socket: NetSocket } }).ws._socket;

describe('a subscriber that falls behind', () => {
  const harness = useRuntime();

  it('is cut off without slowing anyone, and resubscribing from its last sequence loses nothing', async () => {
    const h = harness();
    const url = await serve(h.runtime, { maxBufferedPackets: 32 });

    const threadId = await h.thread();
    await h.command({ type: 'thread.message.send', threadId, text: 'stream a lot' });
    const { runId, rootNodeId } = h.turn(threadId);

    const steady = await connect(url);
    const slow = await connect(url);
    const stream = { stream: 'thread', threadId };
    const { snapshotSequence } = (await steady.emitWithAck('subscribe', stream)) as { snapshotSequence: number };
    expect(await slow.emitWithAck('subscribe', stream)).toMatchObject({ ok: true, snapshotSequence });

    const steadySeen = collectSequences(steady);
    const slowSeen = collectSequences(slow);
    const slowGone = new Promise<string>((resolve) => slow.once('disconnect', (reason) => resolve(reason)));

    // The slow client stops reading; 400 deltas of 64 KB (26 MB, each to a message of its
    // own) overflow the loopback buffers until the server holds over 32 packets for it.
    tcpOf(slow).pause();
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 400; i++)
      await h.feed({ type: 'message.delta', threadId, runId, nodeId: rootNodeId, messageId: `msg_${i}`, delta: chunk });
    const all = h.store.events.readAfter(snapshotSequence, 100_000).map((e) => e.sequence);

    // The steady subscriber got every event, in order, while the slow one stalled.
    await steadySeen.reached(all.at(-1)!);
    expect(steadySeen.sequences).toEqual(all);

    // Once it reads again it finds itself disconnected by the server, holding a prefix.
    tcpOf(slow).resume();
    expect(await within(slowGone, 20_000, 'the server did not cut the stalled subscriber off')).toBe(
      'io server disconnect',
    );
    const before = slowSeen.sequences;
    expect(before.length).toBeLessThan(all.length);
    expect(before).toEqual(all.slice(0, before.length));

    // It reconnects and resubscribes after the last sequence it has: the rest, exactly once.
    const back = await connect(url);
    const after = collectSequences(back);
    expect(
      await back.emitWithAck('subscribe', { ...stream, afterSequence: before.at(-1) ?? snapshotSequence }),
    ).toMatchObject({ ok: true });
    await after.reached(all.at(-1)!);
    expect([...before, ...after.sequences]).toEqual(all);
  });
});
