import { createServer } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Server } from 'socket.io';
import { io, type Socket } from 'socket.io-client';
import { BatonClient, type CommandAck } from '../src/client/baton-client.js';
import { loadConfig } from '../src/config.js';
import { ThreadId } from '../src/domain/ids.js';
import { openDatabase } from '../src/persistence/database.js';
import { startBaton, type BatonApp } from '../src/app/baton-app.js';
import { tempDir } from '../test/support/temp.js';

// The API bench's rig: a running Baton beside a bare Socket.IO echo server, the baseline
// every API figure stands beside, and an echo after one commit of a command's size.

/** A command's result, or the typed error it was refused with, thrown. */
export function resultOf(ack: CommandAck): Record<string, unknown> {
  if (!ack.ok) throw new Error(`${ack.error.code}: ${ack.error.message}`);
  return ack.result;
}

/**
 * The floor under a command's ack: one WAL transaction the size of a settings update's
 * commit (its event, the thread's snapshot and projection row, the receipt) on a database
 * opened as Baton opens its own, with no validation, no actor, no projection code.
 */
function commitFloor(path: string): {
  commit: (message: { commandId?: unknown; threadId?: unknown }) => void;
  close: () => void;
} {
  const db = openDatabase(path);
  db.exec(`CREATE TABLE events (sequence INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE, thread_id TEXT NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, at INTEGER NOT NULL);
    CREATE INDEX events_by_thread ON events (thread_id, sequence);
    CREATE TABLE entities (entity_id TEXT PRIMARY KEY, snapshot TEXT NOT NULL, last_sequence INTEGER NOT NULL);
    CREATE TABLE rows (id TEXT PRIMARY KEY, data TEXT NOT NULL, sequence INTEGER NOT NULL);
    CREATE TABLE receipts (command_id TEXT PRIMARY KEY, result TEXT NOT NULL, sequence INTEGER NOT NULL);`);
  const event = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)');
  const entity = db.prepare(
    'INSERT INTO entities VALUES (?, ?, ?) ON CONFLICT (entity_id) DO UPDATE SET snapshot = excluded.snapshot, last_sequence = excluded.last_sequence',
  );
  const row = db.prepare(
    'INSERT INTO rows VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data, sequence = excluded.sequence',
  );
  const receipt = db.prepare('INSERT INTO receipts VALUES (?, ?, ?)');
  // The sizes a settings update writes: a 741-byte thread snapshot, a 633-byte projection row.
  const snapshot = 's'.repeat(741);
  const data = 'd'.repeat(633);
  let sequence = 0;
  const commit = db.transaction((message: { commandId?: unknown; threadId?: unknown }) => {
    sequence += 1;
    const threadId = String(message.threadId);
    event.run(sequence, `evt_${sequence}`, threadId, 'thread.settings-updated', JSON.stringify(message), Date.now());
    entity.run(threadId, snapshot, sequence);
    row.run(threadId, data, sequence);
    receipt.run(`${String(message.commandId)}_${sequence}`, '{"ok":true}', sequence);
  });
  return { commit: (message) => void commit(message), close: () => db.close() };
}

/**
 * A bare Socket.IO echo server, the baseline every API figure stands beside; given a
 * database path, `commit` echoes too, after one commit of a command's size (the floor
 * under Baton's ack).
 */
export async function echoServer(floorPath?: string): Promise<{ url: string; io: Server; close: () => Promise<void> }> {
  const http = createServer();
  const server = new Server(http);
  const floor = floorPath ? commitFloor(floorPath) : null;
  server.on('connection', (s) => {
    s.on('echo', (payload: unknown, ack: (x: unknown) => void) => ack(payload));
    if (floor)
      s.on('commit', (payload: { commandId?: unknown; threadId?: unknown }, ack: (x: unknown) => void) => {
        floor.commit(payload);
        ack(payload);
      });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { url, io: server, close: () => new Promise((r) => server.close(() => (floor?.close(), r()))) };
}

export const connect = (url: string, token?: string): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = io(url, { transports: ['websocket'], ...(token ? { auth: { token } } : {}) });
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });

/** A running Baton beside a bare Socket.IO echo server, with one client connected to each. */
export interface ApiRig {
  app: BatonApp;
  client: BatonClient;
  echo: Awaited<ReturnType<typeof echoServer>>;
  echoSocket: Socket;
  workspace: string;
  newThread(): Promise<ThreadId>;
  close(): Promise<void>;
}

export async function apiRig(): Promise<ApiRig> {
  const data = tempDir('baton-bench-api-');
  // The threads' workspace: Baton refuses a cwd inside its own data dir.
  const workspace = tempDir('baton-bench-ws-');
  const floor = tempDir('baton-bench-floor-');
  const echo = await echoServer(join(floor.dir, 'floor.sqlite'));
  // The model accepts each turn and never answers: a run stays running with no deltas of
  // its own, so the fan-out measures the bench's deltas alone.
  const app = await startBaton(
    loadConfig({}, { dataDir: data.dir, port: 0, token: 'bench-token-0123456789', model: 'scripted' }),
    pino({ level: 'silent' }),
    { responder: () => ({ kind: 'silent' }) },
  );
  const client = await BatonClient.connect(app.url, app.token);
  const echoSocket = await connect(echo.url);
  return {
    app,
    client,
    echo,
    echoSocket,
    workspace: workspace.dir,
    newThread: async () =>
      ThreadId.parse(resultOf(await client.command('thread.create', { cwd: workspace.dir })).threadId),
    close: async () => {
      echoSocket.close();
      client.close();
      await app.stop();
      await echo.close();
      floor.cleanup();
      data.cleanup();
      workspace.cleanup();
    },
  };
}
