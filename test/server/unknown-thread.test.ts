import { expect, it } from 'vitest';
import { useRuntime } from '../support/runtime.js';
import { useRuntimeServer } from '../support/runtime-server.js';

/**
 * A stream or query naming a thread Baton does not have is refused `not_found`, naming the
 * thread, over real Socket.IO: accepted, it would stay silent for ever, and a mistyped id
 * would look like a quiet thread. Nothing stored changes.
 */
const { serve, connect } = useRuntimeServer();
const harness = useRuntime();

it('a subscription, a snapshot, an events or an actors query of an unknown thread is refused not_found; of a real one, answered', async () => {
  const h = harness();
  const threadId = await h.thread();
  const client = await connect(await serve(h.runtime));
  const last = h.store.lastSequence();
  const missing = 'thr_01M8X000000000000000000000';
  const refused = {
    ok: false,
    error: { code: 'not_found', message: `no thread ${missing}`, details: { threadId: missing } },
  };

  for (const stream of ['thread', 'graph', 'activities'] as const) {
    expect(await client.emitWithAck('subscribe', { stream, threadId: missing })).toMatchObject(refused);
    expect(await client.emitWithAck('subscribe', { stream, threadId: missing, afterSequence: last })).toMatchObject(
      refused,
    );
    expect(
      await client.emitWithAck('query', { type: 'snapshot', request: { stream, threadId: missing } }),
    ).toMatchObject(refused);
    expect(await client.emitWithAck('subscribe', { stream, threadId })).toMatchObject({ ok: true });
  }
  expect(await client.emitWithAck('query', { type: 'events', afterSequence: 0, threadId: missing })).toMatchObject(
    refused,
  );
  expect(await client.emitWithAck('query', { type: 'actors', threadId: missing })).toMatchObject(refused);
  expect(await client.emitWithAck('query', { type: 'actors', threadId })).toMatchObject({ ok: true });
  expect(await client.emitWithAck('query', { type: 'events', afterSequence: 0, threadId: 'not an id' })).toMatchObject({
    ok: false,
    error: { code: 'invalid_payload' },
  });
  const events = (await client.emitWithAck('query', { type: 'events', afterSequence: 0, threadId })) as {
    ok: boolean;
    result: { events: { threadId: string }[] };
  };
  expect(events.ok).toBe(true);
  expect(events.result.events.length).toBeGreaterThan(0);
  expect(events.result.events.every((e) => e.threadId === threadId)).toBe(true);
  expect(h.store.lastSequence()).toBe(last);
});
