import { pino } from 'pino';
import { expect, it } from 'vitest';
import { startBaton } from '../../src/app/baton-app.js';
import { BatonClient } from '../../src/client/baton-client.js';
import { loadConfig } from '../../src/config.js';
import { tempDir } from '../support/temp.js';

const token = 'test-token-0123456789';

it('the typed client comes back to a Baton restarted on its port after failed reconnects, and its subscriptions resume', async () => {
  const data = tempDir('baton-app-');
  const workspace = tempDir('baton-ws-');
  const start = (port: number) =>
    startBaton(loadConfig({}, { dataDir: data.dir, port, token, model: 'scripted' }), pino({ level: 'silent' }));
  let app = await start(0);
  const port = Number(new URL(app.url).port);
  // A stopping Baton says goodbye (`io server disconnect`), after which Socket.IO waits to be
  // told: the client is asked to come back then too, as the console and `baton tail` ask.
  const client = await BatonClient.connect(app.url, token, { reconnectAfterServerClose: true });
  try {
    const seen: string[] = [];
    await client.subscribe({ stream: 'threads' }, (e) => seen.push(e.type));
    // Baton goes away; the client tries again and fails at least once before it is back.
    const failedOnce = new Promise<void>((resolve) => client.socket.io.once('reconnect_error', () => resolve()));
    await app.stop();
    await failedOnce;
    app = await start(port);
    const back = client.socket.connected
      ? Promise.resolve()
      : new Promise<void>((resolve) => client.socket.once('connect', () => resolve()));
    await back;
    const ack = await client.command('thread.create', { cwd: workspace.dir });
    expect(ack.ok).toBe(true);
    await expect.poll(() => seen, { timeout: 10_000 }).toContain('thread.created');
  } finally {
    client.close();
    await app.stop();
    data.cleanup();
    workspace.cleanup();
  }
});
