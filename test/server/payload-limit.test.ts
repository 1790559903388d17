import { describe, expect, it } from 'vitest';
import type { CommandAck } from '../../src/client/baton-client.js';
import { PAYLOAD_MAX_BYTES, TRANSPORT_MAX_BYTES } from '../../src/server/limits.js';
import { useBatons } from '../support/baton-app.js';
import { tempDir } from '../support/temp.js';
import { ThreadId } from '../../src/domain/ids.js';

const { baton, client, onCleanup } = useBatons('limit-test-token-0123456789');

describe('message size limits', () => {
  it('a command over the application limit but under the transport limit gets a typed ack, and nothing is stored', async () => {
    const app = await baton();
    const ws = tempDir('baton-limit-ws-');
    onCleanup(ws.cleanup);
    const c = await client(app);
    const created = await c.command('thread.create', { cwd: ws.dir });
    expect(created.ok).toBe(true);
    const threadId = ThreadId.parse((created as Extract<CommandAck, { ok: true }>).result.threadId);
    const before = app.runtime.store.lastSequence();

    // Fewer characters than the text limit, more bytes than the message limit.
    const text = 'é'.repeat(Math.ceil(PAYLOAD_MAX_BYTES / 2) + 1_000);
    // Straight over the socket, past the client's own check: the server must answer.
    const ack = (await c.socket
      .timeout(20_000)
      .emitWithAck('command', { commandId: 'cmd_big', type: 'thread.message.send', threadId, text })) as CommandAck;
    expect(ack).toMatchObject({
      ok: false,
      commandId: 'cmd_big',
      error: { code: 'invalid_payload', details: { limit: PAYLOAD_MAX_BYTES } },
    });
    if (!ack.ok)
      expect(ack.error.message).toMatch(new RegExp(`^command is \\d+ bytes; the limit is ${PAYLOAD_MAX_BYTES}$`));
    expect(app.runtime.store.lastSequence()).toBe(before);
    expect(app.runtime.store.receipts.get('cmd_big')).toBeFalsy();

    // The typed client refuses it the same way without sending it.
    const local = await c.command('thread.message.send', { threadId, text, commandId: 'cmd_big_2' });
    expect(local).toMatchObject({ ok: false, commandId: 'cmd_big_2', error: { code: 'invalid_payload' } });

    // The connection is still good for a normal command.
    expect((await c.command('thread.message.send', { threadId, text: 'a small one' })).ok).toBe(true);
  });

  it('a message over the transport limit closes that connection (documented) and Baton keeps serving', async () => {
    const app = await baton();
    const c = await client(app);
    c.socket.io.opts.reconnection = false;
    const closed = new Promise<string>((resolve) => c.socket.once('disconnect', (reason) => resolve(reason)));
    c.socket.emit('query', { type: 'receipt', commandId: 'x'.repeat(TRANSPORT_MAX_BYTES + 1_000) });
    expect(await closed).toMatch(/transport close|transport error/);
    const other = await client(app);
    expect((await other.query({ type: 'receipt', commandId: 'cmd_none' })).ok).toBe(true);
  });
});
