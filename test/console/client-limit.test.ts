import { describe, expect, it } from 'vitest';
import { ThreadId } from '../../src/domain/ids.js';
import { oversize } from '../../src/server/limits.js';
import { useBatons } from '../support/baton-app.js';

const { baton, client } = useBatons();

describe('the typed client, browser-safe', () => {
  it('refuses a command over the limit exactly as the server would, without Buffer or node:crypto', async () => {
    const c = await client(await baton());
    // Multi-byte text: the limit is in UTF-8 bytes, not characters.
    const text = 'é'.repeat(600_000);
    const payload = { commandId: 'cmd_big', threadId: ThreadId.parse('thr_x'), text };
    const ack = await c.command('thread.message.send', payload);
    const server = oversize('command', [{ ...payload, type: 'thread.message.send', commandId: 'cmd_big' }])!;
    expect(ack).toEqual({ ok: false, commandId: 'cmd_big', error: server.toInfo() });
    // Under the limit it goes to Baton (which answers for itself); command ids are UUIDs.
    const small = await c.command('thread.message.send', { threadId: ThreadId.parse('thr_x'), text: 'é'.repeat(100) });
    expect(small).toMatchObject({
      ok: false,
      commandId: expect.stringMatching(/^cmd_[0-9a-f-]{36}$/),
      error: { code: 'not_found' },
    });
  });
});
