import { expect, it } from 'vitest';
import { useRuntime } from '../support/runtime.js';
import { useRuntimeServer } from '../support/runtime-server.js';

/**
 * A query field no query reads is refused `invalid_payload`, naming it, over real Socket.IO:
 * dropped, a typo of `threadId` would have an events query answer with every thread's events.
 */
const { serve, connect } = useRuntimeServer();
const harness = useRuntime();

it('every query refuses a field it does not read, naming it; without it, the same query is answered', async () => {
  const h = harness();
  const threadId = await h.thread();
  const client = await connect(await serve(h.runtime));
  const queries = [
    { type: 'snapshot', request: { stream: 'thread', threadId } },
    { type: 'events', afterSequence: 0, threadId },
    { type: 'receipt', commandId: 'cmd_x' },
    { type: 'actors', threadId },
  ];
  for (const query of queries) {
    expect(await client.emitWithAck('query', query)).toMatchObject({ ok: true });
    const refused = (await client.emitWithAck('query', { ...query, threadID: threadId })) as {
      ok: boolean;
      error: { code: string; message: string };
    };
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_payload' } });
    expect(refused.error.message).toContain('threadID');
  }
  // The checkpoint diff too (its checkpoint unknown: the field is refused before it is looked up).
  expect(
    await client.emitWithAck('query', { type: 'checkpoint-diff', checkpointId: 'ckpt_x', threadID: threadId }),
  ).toMatchObject({ ok: false, error: { code: 'invalid_payload' } });
});
