import { BatonClient } from '../../src/client/baton-client.js';
import { Streams } from './live/streams.js';
import { Observable } from './observable.js';

/** What the header shows: the Socket.IO connection as it stands. */
export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'offline';

/** Where the login stands: no token yet, refused, waiting for Baton, or in. */
export type Session =
  | { kind: 'login'; error: string | null }
  | { kind: 'connecting'; error: string | null }
  | { kind: 'ready'; client: BatonClient; streams: Streams; token: string };

export const connectionState = new Observable<ConnectionState>('connecting');

/** Failed reconnects before the header says offline instead of reconnecting. */
const offlineAfter = 3;

const isUnauthorized = (error: unknown): boolean =>
  (error as { data?: { code?: unknown } } | null)?.data?.code === 'unauthorized';

/**
 * Connects the typed client with the token. A refused token ends in the login form with the
 * reason; a Baton that cannot be reached is retried (the header says so) until it answers.
 */
export async function connect(token: string, session: Observable<Session>): Promise<void> {
  connectionState.set('connecting');
  for (let attempt = 0; ; attempt++) {
    try {
      // Also after Baton closes the connection itself (a restart, or a cut-off for falling behind): the views resume.
      const client = await BatonClient.connect(location.origin, token, { reconnectAfterServerClose: true });
      watch(client, session);
      connectionState.set('connected');
      session.set({ kind: 'ready', client, streams: new Streams(client, token), token });
      return;
    } catch (error) {
      if (isUnauthorized(error))
        return session.set({ kind: 'login', error: 'Baton refused this token (unauthorized). Paste the current one.' });
      connectionState.set(attempt + 1 >= offlineAfter ? 'offline' : 'reconnecting');
      session.set({
        kind: 'connecting',
        error: `Cannot reach Baton at ${location.origin}: ${error instanceof Error ? error.message : String(error)}`,
      });
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** attempt)));
    }
  }
}

/**
 * Socket.IO would buffer what is sent while the connection is down and send it on
 * reconnect, or drop it at the ack timeout a minute later: a person would not know which.
 * While offline the console refuses at once instead; `send` shows the refusal as a notice
 * and the composer keeps the text.
 */
function refuseWhileOffline(client: BatonClient): void {
  const offline = () =>
    Object.assign(new Error('Baton is not connected, so nothing was sent. Try again once the header says Connected.'), {
      name: 'NotConnected',
    });
  const command = client.command.bind(client);
  const query = client.query.bind(client);
  client.command = (type, payload) => (client.socket.connected ? command(type, payload) : Promise.reject(offline()));
  client.query = (q) => (client.socket.connected ? query(q) : Promise.reject(offline()));
}

function watch(client: BatonClient, session: Observable<Session>): void {
  const { socket } = client;
  refuseWhileOffline(client);
  let failures = 0;
  socket.on('connect', () => {
    failures = 0;
    connectionState.set('connected');
  });
  socket.on('disconnect', () => {
    connectionState.set(navigator.onLine ? 'reconnecting' : 'offline');
  });
  socket.io.on('reconnect_error', () => {
    failures += 1;
    if (failures >= offlineAfter) connectionState.set('offline');
  });
  // A Baton that came back with another token refuses this one: back to the login form.
  socket.on('connect_error', (error) => {
    if (!isUnauthorized(error)) return;
    const current = session.value;
    if (current.kind === 'ready') current.streams.closeAll();
    client.close();
    session.set({ kind: 'login', error: 'Baton no longer accepts this token (unauthorized). Paste the current one.' });
  });
  addEventListener('offline', () => connectionState.set('offline'));
  addEventListener('online', () => connectionState.set(socket.connected ? 'connected' : 'reconnecting'));
}
