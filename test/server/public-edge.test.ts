import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { io } from 'socket.io-client';
import { pino } from 'pino';
import { BatonClient } from '../../src/client/baton-client.js';
import { loadConfig } from '../../src/config.js';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import { tempDir } from '../support/temp.js';
import { serveProcess, type ServeProcess } from '../support/serve-process.js';

const token = 'edge-test-token-0123456789';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function baton(env: Record<string, string> = {}): Promise<BatonApp> {
  const data = tempDir('baton-edge-');
  const app = await startBaton(
    loadConfig(env, { dataDir: data.dir, port: 0, token, model: 'scripted' }),
    pino({ level: 'silent' }),
  );
  cleanups.push(data.cleanup, () => app.stop());
  return app;
}

async function child(): Promise<ServeProcess> {
  const data = tempDir('baton-edge-child-');
  const p = await serveProcess(data.dir, { BATON_TOKEN: token });
  cleanups.push(data.cleanup, () => void p.child.kill('SIGKILL'));
  return p;
}

/** A handshake: 'connected', or the connect_error's message and data. */
function handshake(
  url: string,
  options: { token?: string; auth?: unknown; origin?: string; transport?: 'websocket' | 'polling' },
): Promise<{ connected: true } | { connected: false; message: string; data: unknown }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (s.close(), reject(new Error('the handshake got no answer'))), 5_000);
    const s = io(url, {
      transports: [options.transport ?? 'websocket'],
      reconnection: false,
      auth: ('auth' in options ? options.auth : { token: options.token ?? token }) as never,
      ...(options.origin ? { extraHeaders: { origin: options.origin } } : {}),
    });
    s.on('connect', () => (clearTimeout(timer), s.close(), resolve({ connected: true })));
    s.on(
      'connect_error',
      (e: Error & { data?: unknown }) => (
        clearTimeout(timer),
        s.close(),
        resolve({ connected: false, message: e.message, data: e.data })
      ),
    );
  });
}

/** One raw HTTP request; resolves with the status, or rejects if no answer comes in time. */
function raw(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method: options.method ?? 'GET', headers: options.headers });
    const timer = setTimeout(
      () => (req.destroy(), reject(new Error(`${options.method ?? 'GET'} ${path}: no answer`))),
      options.timeoutMs ?? 3_000,
    );
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => (clearTimeout(timer), resolve({ status: res.statusCode!, body })));
    });
    req.on('error', (e) => (clearTimeout(timer), reject(e)));
    req.end();
  });
}

/** A WebSocket upgrade request to `path`: resolves with the first status line the server writes. */
function upgrade(url: string, path: string, timeoutMs = 3_000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(Number(port), hostname);
    const timer = setTimeout(() => (socket.destroy(), reject(new Error(`upgrade ${path}: no answer`))), timeoutMs);
    let got = '';
    socket.on('data', (c: Buffer) => {
      got += c.toString();
      if (got.includes('\r\n')) (clearTimeout(timer), socket.destroy(), resolve(got.split('\r\n')[0]!));
    });
    socket.on('close', () => (clearTimeout(timer), resolve(got.split('\r\n')[0] ?? '')));
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    );
  });
}

describe('the handshake', () => {
  it('a token of the same length but other UTF-8 bytes is refused as unauthorized, and `baton serve` stays up', async () => {
    const p = await child();
    const sneaky = 'é'.repeat(token.length);
    expect(sneaky.length).toBe(token.length);
    const exited = new Promise<never>((_, reject) =>
      p.child.once('exit', (code, signal) =>
        reject(new Error(`baton serve exited (${code ?? signal}): ${p.stderr()}`)),
      ),
    );
    const refused = await Promise.race([handshake(p.url, { token: sneaky }), exited]);
    expect(refused).toMatchObject({ connected: false, data: { code: 'unauthorized' } });
    expect(await handshake(p.url, { token: 'x' })).toMatchObject({ connected: false, data: { code: 'unauthorized' } });
    // An auth that is no object at all is refused the same way, not dropped without a word.
    for (const auth of ['a string', [token], 42, null]) {
      expect(await handshake(p.url, { auth }), JSON.stringify(auth)).toMatchObject({
        connected: false,
        data: { code: 'unauthorized' },
      });
    }

    expect((await raw(p.url, '/healthz')).status).toBe(200);
    expect(p.child.exitCode).toBeNull();
    const c = await BatonClient.connect(p.url, token);
    expect(c.socket.connected).toBe(true);
    c.close();
  });

  it('a browser Origin that is not allowed is refused at the HTTP handshake; Baton’s own origin, a configured one and none are accepted', async () => {
    const app = await baton({ BATON_ALLOWED_ORIGINS: 'https://gui.example.com, http://localhost:5173' });
    const port = new URL(app.url).port;
    for (const transport of ['websocket', 'polling'] as const) {
      expect(await handshake(app.url, { origin: 'https://evil.example', transport }), transport).toMatchObject({
        connected: false,
      });
      expect(await handshake(app.url, { origin: `http://127.0.0.1:${port}`, transport }), transport).toEqual({
        connected: true,
      });
      expect(await handshake(app.url, { origin: `http://localhost:${port}`, transport }), transport).toEqual({
        connected: true,
      });
      expect(await handshake(app.url, { origin: 'https://gui.example.com', transport }), transport).toEqual({
        connected: true,
      });
      expect(await handshake(app.url, { origin: 'http://localhost:5173', transport }), transport).toEqual({
        connected: true,
      });
      expect(await handshake(app.url, { transport }), transport).toEqual({ connected: true });
    }
    // Close look-alikes are not the same origin.
    for (const origin of [
      'null',
      'http://127.0.0.1',
      `https://127.0.0.1:${port}`,
      'https://gui.example.com.evil.example',
      'http://localhost:51730',
    ]) {
      expect(await handshake(app.url, { origin }), origin).toMatchObject({ connected: false });
    }
    const polled = await raw(app.url, '/socket.io/?EIO=4&transport=polling', {
      headers: { origin: 'https://evil.example' },
    });
    expect(polled.status).toBe(403);
  });

  it('BATON_ALLOWED_ORIGINS that is not a list of origins is one clear configuration error', () => {
    expect(() => loadConfig({ BATON_ALLOWED_ORIGINS: 'gui.example.com' })).toThrow(/allowedOrigins/);
    expect(() => loadConfig({ BATON_ALLOWED_ORIGINS: 'https://gui.example.com/app' })).toThrow(/allowedOrigins/);
    expect(
      loadConfig({ BATON_ALLOWED_ORIGINS: 'https://GUI.example.com/ ,http://localhost:5173' }).allowedOrigins,
    ).toEqual(['https://gui.example.com', 'http://localhost:5173']);
  });
});

describe('every refusal is typed', () => {
  it('unsubscribe with no id or an unknown one is refused with a code', async () => {
    const app = await baton();
    const c = await BatonClient.connect(app.url, token);
    cleanups.push(() => c.close());
    expect(await c.socket.timeout(5_000).emitWithAck('unsubscribe', {})).toMatchObject({
      ok: false,
      error: { code: 'invalid_payload' },
    });
    expect(await c.socket.timeout(5_000).emitWithAck('unsubscribe', 'sub_none')).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    const { subscription } = await c.subscribe({ stream: 'threads' }, () => undefined);
    expect(
      await c.socket.timeout(5_000).emitWithAck('unsubscribe', (subscription as unknown as { id: string }).id),
    ).toEqual({ ok: true });
  });
});

describe('every HTTP request is answered', () => {
  it('odd paths and methods get a status, never a hang', async () => {
    const app = await baton();
    const cases: [string, string, number][] = [
      ['GET', '/socket.io', 404],
      ['GET', '/socket.io?EIO=4&transport=polling', 404],
      ['GET', '/socket.iox', 404],
      ['GET', '/healthz', 200],
      ['GET', '/healthz?probe=1', 200],
      ['HEAD', '/healthz', 200],
      ['POST', '/healthz', 405],
      // The console's page (the bundle is built when the project installs).
      ['GET', '/', 200],
      ['GET', '/socket.io/', 400],
      ['GET', '/socket.io/?EIO=3&transport=polling', 400],
      ['GET', '/socket.io/?EIO=4&transport=carrier-pigeon', 400],
      ['DELETE', '/socket.io/?EIO=4&transport=polling', 400],
      ['GET', '/%', 404],
      ['GET', '/nothing/here', 404],
    ];
    for (const [method, path, status] of cases) {
      expect((await raw(app.url, path, { method })).status, `${method} ${path}`).toBe(status);
    }
    for (const path of ['/', '/socket.io', '/healthz']) {
      expect(await upgrade(app.url, path), `upgrade ${path}`).toMatch(/^HTTP\/1\.1 4\d\d/);
    }
  });
});

describe('stray errors', () => {
  it('`baton serve` logs an unhandled rejection and an uncaught exception and keeps serving', async () => {
    const data = tempDir('baton-edge-stray-');
    const p = await serveProcess(
      data.dir,
      { BATON_TOKEN: token },
      fileURLToPath(new URL('../fixtures/stray-errors-serve.ts', import.meta.url)),
    );
    cleanups.push(data.cleanup, () => void p.child.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no stray errors were raised: ${p.stderr()}`)), 10_000);
      p.child.once(
        'exit',
        (code) => (clearTimeout(timer), reject(new Error(`baton serve exited (${code}): ${p.stderr()}`))),
      );
      let out = '';
      p.child.stdout!.on(
        'data',
        (c: Buffer) => (out += c.toString()).includes('strays thrown') && (clearTimeout(timer), resolve()),
      );
    });
    expect((await raw(p.url, '/healthz')).status).toBe(200);
    const c = await BatonClient.connect(p.url, token);
    c.close();
    expect(p.child.exitCode).toBeNull();
    expect(p.stderr()).toContain('unhandled rejection; Baton keeps serving');
    expect(p.stderr()).toContain('a stray rejection');
    expect(p.stderr()).toContain('uncaught exception; Baton keeps serving');
    expect(p.stderr()).toContain('a stray exception');
  });
});
