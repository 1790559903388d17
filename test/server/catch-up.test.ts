import { describe, expect, it } from 'vitest';
import { streamMatches } from '../../src/server/streams.js';
import type { StreamRequest } from '../../src/domain/stream-request.js';
import type { Store } from '../../src/persistence/store.js';
import { useRuntime } from '../support/runtime.js';
import { collectSequences, useRuntimeServer } from '../support/runtime-server.js';
import { typicalUnit } from '../support/units.js';

/**
 * A subscription resumed with `afterSequence` far behind the log's end, over real Socket.IO
 * on loopback and a real SQLite log: the server reads what it missed a page at a time, so it
 * answers others meanwhile, and nothing is lost or sent twice on the way to live delivery.
 */
const { serve, connect } = useRuntimeServer();

/** `count` events of a thread no one watches, committed straight to the log (run status changes: the threads stream carries them). */
function fill(store: Store, count: number): void {
  for (let from = 0; from < count; from += 1_000)
    store.commitMany(
      Array.from({ length: Math.min(1_000, count - from) }, (_, i) => ({
        events: typicalUnit('thr_filler', from + i + 1).events,
      })),
    );
}

/** The sequences in the log after `after` that `req`'s stream carries. */
const expected = (store: Store, req: StreamRequest, after: number) =>
  store.events
    .readAfter(after, 1_000_000)
    .filter((e) => streamMatches(req, e))
    .map((e) => e.sequence);

describe('a subscription resumed from far back', () => {
  const harness = useRuntime();

  it('gets every missed event once and in order, then live ones, and the server answers meanwhile', async () => {
    const h = harness();
    const threadId = await h.thread();
    fill(h.store, 10_000);
    // A server that cuts off a client with more than 32 packets waiting: the catch-up must
    // pace itself under that.
    const reader = await connect(await serve(h.runtime, { maxBufferedPackets: 32 }));
    const seen = collectSequences(reader);
    const req: StreamRequest = { stream: 'threads', afterSequence: 0 };
    const gone = new Promise<string>((resolve) => reader.once('disconnect', (reason) => resolve(reason)));

    // A command sent on the same socket right behind the subscription: one socket keeps its
    // packets in order, so its ack shows where the server answered it. A catch-up done in
    // one pass would send all 10,000 events first.
    const [subscribed, ack] = await Promise.all([
      reader.emitWithAck('subscribe', req),
      reader
        .emitWithAck('command', {
          commandId: 'cmd_during_catch_up',
          type: 'thread.settings.update',
          threadId,
          title: 'written during the catch-up',
        })
        .then((ack: unknown) => ({ ack, seenBefore: seen.sequences.length })),
    ]);
    expect(subscribed).toMatchObject({ ok: true, snapshotSequence: 0 });
    expect(ack.ack).toMatchObject({ ok: true });
    expect(ack.seenBefore).toBeLessThan(10_000);

    // The command's event came through the catch-up (the log), once, in its place.
    const all = expected(h.store, req, 0);
    await Promise.race([seen.reached(all.at(-1)!), gone.then((reason) => Promise.reject(new Error(reason)))]);
    expect(seen.sequences).toEqual(all);

    // Caught up, it is live: the next event comes from the fan-out, once.
    await h.command({ type: 'thread.settings.update', threadId, title: 'after the catch-up' });
    const next = expected(h.store, req, all.at(-1)!);
    expect(next).toHaveLength(1);
    await seen.reached(next[0]!);
    expect(seen.sequences).toEqual([...all, ...next]);
    expect(reader.connected).toBe(true);
  });

  it("a thread's stream carries that thread's events only, however many others the log holds", async () => {
    const h = harness();
    const threadId = await h.thread();
    await h.command({ type: 'thread.settings.update', threadId, title: 'before' });
    fill(h.store, 5_000);
    await h.command({ type: 'thread.settings.update', threadId, title: 'after' });
    const reader = await connect(await serve(h.runtime));
    const seen = collectSequences(reader);
    const req = { stream: 'thread', threadId, afterSequence: 0 } as StreamRequest;
    expect(await reader.emitWithAck('subscribe', req)).toMatchObject({ ok: true });
    const mine = expected(h.store, req, 0);
    expect(mine.length).toBeGreaterThan(2);
    expect(mine.length).toBeLessThan(20);
    await seen.reached(mine.at(-1)!);
    expect(seen.sequences).toEqual(mine);
  });

  it('stops when the client unsubscribes midway, and sends nothing after', async () => {
    const h = harness();
    const threadId = await h.thread();
    fill(h.store, 10_000);
    const reader = await connect(await serve(h.runtime));
    const seen = collectSequences(reader);
    const { subscriptionId } = (await reader.emitWithAck('subscribe', { stream: 'threads', afterSequence: 0 })) as {
      subscriptionId: string;
    };
    expect(await reader.emitWithAck('unsubscribe', subscriptionId)).toEqual({ ok: true });
    const atUnsubscribe = seen.sequences.length;
    expect(atUnsubscribe).toBeLessThan(10_000);
    // An event the stream would carry, and a round trip behind it on the same socket: nothing more arrived.
    await reader.emitWithAck('command', {
      commandId: 'cmd_after_unsubscribe',
      type: 'thread.settings.update',
      threadId,
      title: 'after',
    });
    expect(await reader.emitWithAck('query', { type: 'receipt', commandId: 'cmd_after_unsubscribe' })).toMatchObject({
      ok: true,
    });
    expect(seen.sequences).toHaveLength(atUnsubscribe);
  });

  it("refuses a cursor past the end of the log (another Baton's), typed, and subscribes nothing", async () => {
    const h = harness();
    const threadId = await h.thread();
    const reader = await connect(await serve(h.runtime));
    const seen = collectSequences(reader);
    const last = h.store.lastSequence();
    expect(await reader.emitWithAck('subscribe', { stream: 'threads', afterSequence: last + 5 })).toMatchObject({
      ok: false,
      error: { code: 'not_found', details: { afterSequence: last + 5, lastSequence: last } },
    });
    // An event the stream would carry, and a round trip behind it: nothing was subscribed.
    await reader.emitWithAck('command', {
      commandId: 'cmd_after',
      type: 'thread.settings.update',
      threadId,
      title: 'x',
    });
    expect(await reader.emitWithAck('query', { type: 'receipt', commandId: 'cmd_after' })).toMatchObject({ ok: true });
    expect(seen.sequences).toEqual([]);
    // At the end of the log itself it is a subscription.
    expect(
      await reader.emitWithAck('subscribe', { stream: 'threads', afterSequence: h.store.lastSequence() }),
    ).toMatchObject({
      ok: true,
    });
  });

  it('names its log in every answer, and refuses a cursor named for another log even where this log is longer', async () => {
    const h = harness();
    const threadId = await h.thread();
    const reader = await connect(await serve(h.runtime));
    const seen = collectSequences(reader);
    const logId = h.store.events.id;
    expect(logId).toMatch(/^log_[0-9a-f]{32}$/);
    expect(await reader.emitWithAck('subscribe', { stream: 'threads' })).toMatchObject({ ok: true, logId });
    const afterSequence = h.store.lastSequence() - 1;
    const other = 'log_00000000000000000000000000000000';
    expect(await reader.emitWithAck('subscribe', { stream: 'threads', afterSequence, logId: other })).toMatchObject({
      ok: false,
      error: { code: 'not_found', details: { logId: other, thisLogId: logId } },
    });
    // Named for no log at all, or for this one, the same cursor resumes.
    expect(await reader.emitWithAck('subscribe', { stream: 'thread', threadId, afterSequence, logId })).toMatchObject({
      ok: true,
      snapshot: null,
      logId,
    });
    await seen.reached(afterSequence + 1);
    expect(seen.sequences).toEqual([afterSequence + 1]);

    // The queries that give sequences name the log too, and take a cursor only in it.
    const snapshot = { type: 'snapshot', request: { stream: 'threads' } };
    expect(await reader.emitWithAck('query', snapshot)).toMatchObject({
      ok: true,
      result: { snapshotSequence: h.store.lastSequence(), logId },
    });
    for (const request of [
      { stream: 'threads', logId: other },
      { stream: 'threads', afterSequence: 0 },
    ])
      expect(await reader.emitWithAck('query', { ...snapshot, request })).toMatchObject({
        ok: false,
        error: { code: request.logId ? 'not_found' : 'invalid_payload' },
      });
    expect(await reader.emitWithAck('query', { type: 'events', afterSequence, logId })).toMatchObject({
      ok: true,
      result: { events: [{ sequence: afterSequence + 1 }], logId },
    });
    expect(await reader.emitWithAck('query', { type: 'events', afterSequence, logId: other })).toMatchObject({
      ok: false,
      error: { code: 'not_found', details: { logId: other, thisLogId: logId } },
    });

    // So do a command's ack (the first time and when the same command comes again) and its receipt.
    const command = { commandId: 'cmd_logged', type: 'thread.settings.update', threadId, title: 'logged' };
    const ack = { ok: true, commandId: 'cmd_logged', sequence: h.store.lastSequence() + 1, logId };
    expect(await reader.emitWithAck('command', command)).toMatchObject(ack);
    expect(await reader.emitWithAck('command', command)).toMatchObject(ack);
    expect(await reader.emitWithAck('query', { type: 'receipt', commandId: 'cmd_logged' })).toMatchObject({
      ok: true,
      result: { receipt: { commandId: 'cmd_logged', sequence: ack.sequence }, logId },
    });
  });
});
