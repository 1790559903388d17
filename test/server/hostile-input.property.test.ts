import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { io, type Socket } from 'socket.io-client';
import { ErrorCode } from '../../src/domain/errors.js';
import { commandTypes } from '../../src/domain/commands.js';
import { serveProcess } from '../support/serve-process.js';
import { tempDir } from '../support/temp.js';

const token = 'hostile-input-token-0123456789';
const data = tempDir('baton-hostile-');
const ws = tempDir('baton-hostile-ws-');
let child: ChildProcess;
let url = '';
let exited: string | null = null;

beforeAll(async () => {
  const baton = await serveProcess(data.dir, { BATON_TOKEN: token, BATON_LOG_LEVEL: 'silent' });
  child = baton.child;
  url = baton.url;
  child.on('exit', (code, signal) => (exited = `exited ${code ?? signal}: ${baton.stderr().slice(-2_000)}`));
}, 60_000);

afterAll(() => {
  child.kill('SIGKILL');
  data.cleanup();
  ws.cleanup();
});

/** One HTTP request; resolves with the status, or 'no answer' when none came in time. */
function http(method: string, path: string, headers: Record<string, string> = {}): Promise<number | 'no answer'> {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.setTimeout(5_000, () => (req.destroy(), resolve('no answer')));
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** A handshake with whatever auth and Origin; resolves 'connected' or the refusal's message. */
function handshake(auth: unknown, origin: string | null): Promise<string> {
  return new Promise((resolve) => {
    const s = io(url, {
      transports: ['websocket'],
      reconnection: false,
      timeout: 5_000,
      auth: auth as never,
      ...(origin ? { extraHeaders: { origin } } : {}),
    });
    s.on('connect', () => (s.close(), resolve('connected')));
    s.on('connect_error', (e) => (s.close(), resolve(e.message)));
  });
}

let socket: Socket;
const validSocket = async (): Promise<Socket> => {
  if (socket?.connected) return socket;
  socket = io(url, { transports: ['websocket'], reconnection: false, auth: { token } });
  await new Promise<void>(
    (resolve, reject) => (socket.on('connect', () => resolve()), socket.on('connect_error', reject)),
  );
  return socket;
};

const unicodeToken = fc.oneof(
  fc.string({ unit: 'binary', minLength: token.length, maxLength: token.length }),
  fc.string({ unit: 'grapheme' }),
  fc.constant(token.replace(/.$/, 'é')),
);
const action = fc.oneof(
  fc.record({
    kind: fc.constant('handshake' as const),
    auth: fc.oneof(fc.record({ token: fc.oneof(fc.constant(token), unicodeToken, fc.jsonValue()) }), fc.jsonValue()),
    // 'self' stands for Baton's own origin, known once it listens.
    origin: fc.option(fc.oneof(fc.constant('self'), fc.webUrl(), fc.string()), { nil: null }),
  }),
  fc.record({
    kind: fc.constant('emit' as const),
    event: fc.constantFrom('command', 'subscribe', 'query', 'unsubscribe', 'nope'),
    payload: fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          commandId: fc.string(),
          type: fc.constantFrom(...commandTypes, 'x'),
          threadId: fc.string(),
          cwd: fc.oneof(fc.string(), fc.constant('/'), fc.constant(ws.dir)),
          text: fc.string(),
        },
        { requiredKeys: [] },
      ),
      fc.record(
        {
          stream: fc.constantFrom('threads', 'thread', 'graph', 'requests', 'sessions', 'x'),
          threadId: fc.string(),
          afterSequence: fc.oneof(fc.integer(), fc.string()),
        },
        { requiredKeys: [] },
      ),
      fc.record(
        {
          type: fc.constantFrom('snapshot', 'events', 'receipt', 'x'),
          afterSequence: fc.integer(),
          commandId: fc.string(),
        },
        { requiredKeys: [] },
      ),
    ),
  }),
  fc.record({
    kind: fc.constant('http' as const),
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'),
    path: fc.constantFrom(
      '/',
      '/socket.io',
      '/socket.io/',
      '/socket.io/?EIO=4&transport=polling',
      '/socket.io/?EIO=9',
      '/healthz',
      '/%00',
      '/x?y=%ff',
      '/..%2f..%2fetc/passwd',
    ),
  }),
);

describe('hostile input over the public API (a real `baton serve`)', () => {
  it('never takes Baton down; every refusal is typed; every HTTP request is answered', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 12 }), async (actions) => {
        for (const a of actions) {
          if (a.kind === 'handshake') {
            // An empty Origin is sent as none.
            const origin = (a.origin === 'self' ? new URL(url).origin : a.origin) || null;
            const outcome = await handshake(a.auth, origin);
            // Only the right token from no Origin (or Baton's own) gets in.
            if (outcome === 'connected') {
              expect((a.auth as { token?: unknown })?.token).toBe(token);
              expect([null, new URL(url).origin]).toContain(origin);
            }
          } else if (a.kind === 'http') {
            expect(await http(a.method, a.path)).not.toBe('no answer');
          } else {
            const s = await validSocket();
            if (a.event === 'nope') {
              s.emit(a.event, a.payload);
              continue;
            }
            const ack = (await s
              .timeout(10_000)
              .emitWithAck(a.event, a.payload)
              .catch(() => 'no ack')) as { ok?: boolean; error?: { code: string } } | 'no ack';
            expect(ack).not.toBe('no ack');
            if (typeof ack === 'object' && ack.ok === false) {
              expect(ErrorCode.options).toContain(ack.error!.code);
              expect(ack.error!.code).not.toBe('internal');
            }
          }
          expect(exited).toBeNull();
        }
        expect(await http('GET', '/healthz')).toBe(200);
      }),
      { numRuns: 150 },
    );
    socket?.close();
  }, 240_000);
});
