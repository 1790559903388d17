import { afterEach } from 'vitest';
import { pino } from 'pino';
import { io, type Socket } from 'socket.io-client';
import type { Runtime } from '../../src/actors/runtime.js';
import { BatonServer } from '../../src/server/server.js';

/** The token of every server `useRuntimeServer` starts. */
export const runtimeServerToken = 'runtime-server-token-0123456789';

export interface ServeOptions {
  maxBufferedPackets?: number;
  port?: number;
}

export interface StartedServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Baton's Socket.IO server over a test harness's runtime, on a free loopback port, and raw
 * Socket.IO clients of it; everything is closed after each test, newest first.
 */
export function useRuntimeServer() {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  async function start(runtime: Runtime, options: ServeOptions = {}): Promise<StartedServer> {
    const server = new BatonServer({
      runtime,
      host: '127.0.0.1',
      port: 0,
      token: runtimeServerToken,
      logger: pino({ level: 'silent' }),
      ...options,
    });
    const { port } = await server.listen();
    let closed: Promise<void> | null = null;
    const close = () => (closed ??= server.close());
    cleanups.push(close);
    return { url: `http://127.0.0.1:${port}`, port, close };
  }
  return {
    onCleanup: (cleanup: () => Promise<void> | void) => void cleanups.push(cleanup),
    /** Starts a server (on a free port, unless given one); resolves to its URL. */
    async serve(runtime: Runtime, options: ServeOptions = {}): Promise<string> {
      return (await start(runtime, options)).url;
    },
    /** Starts a server; resolves to its URL, its port, and a close that may come before the test's end. */
    start,
    /** A raw Socket.IO client over websocket, connected, that does not reconnect. */
    connect(url: string): Promise<Socket> {
      return new Promise((resolve, reject) => {
        const s = io(url, { transports: ['websocket'], reconnection: false, auth: { token: runtimeServerToken } });
        cleanups.push(() => void s.close());
        s.once('connect', () => resolve(s));
        s.once('connect_error', reject);
      });
    },
  };
}

export interface SeenSequences {
  sequences: number[];
  /** Resolves once the socket has been sent `sequence` (or a later one), or rejects after `ms`. */
  reached(sequence: number, ms?: number): Promise<void>;
}

/** Collects the sequences of the `stream` messages a socket is sent. */
export function collectSequences(s: Socket): SeenSequences {
  const sequences: number[] = [];
  let wake = () => undefined as void;
  s.on('stream', (m: { sequence: number }) => {
    sequences.push(m.sequence);
    wake();
  });
  return {
    sequences,
    reached: (sequence, ms = 30_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`sequence ${sequence} not delivered in ${ms} ms`)), ms);
        wake = () => {
          if ((sequences.at(-1) ?? 0) < sequence) return;
          clearTimeout(timer);
          resolve();
        };
        wake();
      }),
  };
}
