import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { consolePages, consoleUrl, contentSecurityPolicy } from '../../src/server/console-route.js';
import { answerHttp } from '../../src/server/http-routes.js';
import { originPolicy } from '../../src/server/origin-policy.js';
import { tempDir } from '../support/temp.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Baton's HTTP answering (the real `answerHttp`) with the console's pages from `dist`, on a loopback port. */
async function serving(dist: string): Promise<string> {
  const server: Server = createServer((req, res) => answerHttp(req, res, () => ({ ok: true }), {}, consolePages(dist)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A request with the path sent as written (fetch would normalize `..` away). */
function raw(base: string, path: string, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = request(`${base}/`, { method, path }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

function builtConsole(): string {
  const dist = tempDir('baton-console-dist-');
  cleanups.push(dist.cleanup);
  mkdirSync(join(dist.dir, 'assets'));
  writeFileSync(join(dist.dir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(dist.dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
  writeFileSync(join(dist.dir, 'assets', 'index-AbC123.css'), 'body{}');
  writeFileSync(join(dist.dir, 'favicon.svg'), '<svg/>');
  writeFileSync(join(dist.dir, '.hidden'), 'secret');
  return dist.dir;
}

describe('the console served by Baton', () => {
  it('serves / and its assets with their types, a strict CSP, and long caching only for hashed assets', async () => {
    const base = await serving(builtConsole());
    const page = await raw(base, '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>console</title>');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const host = new URL(base).host;
    expect(page.headers['content-security-policy']).toBe(contentSecurityPolicy(host));
    expect(page.headers['content-security-policy']).toMatch(
      /^default-src 'self'; connect-src 'self' ws:\/\/127\.0\.0\.1:\d+;/,
    );
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    const js = await raw(base, '/assets/index-AbC123.js');
    expect([js.status, js.headers['content-type'], js.headers['cache-control']]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'public, max-age=31536000, immutable',
    ]);
    expect((await raw(base, '/assets/index-AbC123.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    const icon = await raw(base, '/favicon.svg');
    expect([icon.headers['content-type'], icon.headers['cache-control']]).toEqual(['image/svg+xml', 'no-cache']);
    const head = await raw(base, '/', 'HEAD');
    expect([head.status, head.body, head.headers['content-length']]).toEqual([200, '', String(page.body.length)]);
  });

  it('never reads outside its folder: traversal, encoded slashes, NUL and dotfiles are 404', async () => {
    const base = await serving(builtConsole());
    for (const path of [
      '/../package.json',
      '/assets/../../package.json',
      '/%2e%2e/package.json',
      '/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/assets%2f..%2f..%2fpackage.json',
      '/assets/..%5c..%5cpackage.json',
      '/index.html%00.js',
      '/.hidden',
      '/assets/',
      '/assets',
      '//etc/passwd',
      '/%',
    ]) {
      const res = await raw(base, path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain('secret');
      expect(res.body, path).not.toContain('"name": "baton"');
    }
    // Only GET and HEAD reach the files; other methods and Baton's own paths are left to Baton.
    expect((await raw(base, '/', 'POST')).status).toBe(404);
    expect((await raw(base, '/healthz')).body).toBe('{"ok":true}');
  });

  it('answers a clear 503 page naming the build command when the console was not built', async () => {
    const empty = tempDir('baton-console-none-');
    cleanups.push(empty.cleanup);
    const base = await serving(join(empty.dir, 'dist'));
    const page = await raw(base, '/');
    expect(page.status).toBe(503);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('npm run console:build');
    expect((await raw(base, '/assets/index-AbC123.js')).status).toBe(404);
  });

  it('the token rides in the fragment only; the console origin is the one Baton allows, and nothing broader', () => {
    const url = consoleUrl('http://127.0.0.1:7420', 'a+b/c=');
    expect(url).toBe('http://127.0.0.1:7420/#token=a%2Bb%2Fc%3D');
    expect(new URL(url).search).toBe('');
    const allowed = originPolicy([], { host: '127.0.0.1', port: 7420 });
    expect(allowed(new URL(url).origin)).toBe(true);
    expect(allowed('http://127.0.0.1:7421')).toBe(false);
    expect(allowed('http://evil.example')).toBe(false);
    expect(allowed('null')).toBe(false);
    // A Host header that could smuggle anything into the policy is left out of it.
    expect(contentSecurityPolicy("x; script-src 'unsafe-inline'")).not.toContain('unsafe-inline');
  });
});
