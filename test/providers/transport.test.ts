import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatonError } from '../../src/domain/errors.js';
import { FrameLog } from '../../src/providers/transport/diagnostics.js';
import { JsonRpcConnection } from '../../src/providers/transport/json-rpc.js';
import { ChildProcessChannel } from '../../src/providers/transport/line-channel.js';
import { tempDir } from '../support/temp.js';

const peerScript = fileURLToPath(new URL('../fixtures/rpc-peer.ts', import.meta.url));
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function peer(log?: FrameLog) {
  const child = spawn(process.execPath, ['--import', 'tsx', peerScript], { stdio: ['pipe', 'pipe', 'pipe'] });
  cleanups.push(() => child.kill('SIGKILL'));
  return new JsonRpcConnection(new ChildProcessChannel(child), { requestTimeoutMs: 10_000, ...(log ? { log } : {}) });
}

const next = <T>(register: (resolve: (v: T) => void) => void) => new Promise<T>((resolve) => register(resolve));

describe('JSON-RPC line transport over a real child process', () => {
  it("correlates requests and responses, passes notifications and the peer's own requests, and fails typed", async () => {
    const rpc = peer();
    expect(await rpc.request('echo', { a: 1 })).toEqual({ a: 1 });
    const [r1, r2] = await Promise.all([rpc.request('echo', 'first'), rpc.request('echo', 'second')]);
    expect([r1, r2]).toEqual(['first', 'second']);

    const note = next<[string, unknown]>((resolve) => rpc.onNotification((m, p) => resolve([m, p])));
    await rpc.notify('notify');
    expect(await note).toEqual(['progress', { pct: 50 }]);

    const asked = next<[string | number, string, unknown]>((resolve) =>
      rpc.onRequest((id, m, p) => resolve([id, m, p])),
    );
    await rpc.notify('ask');
    const [id, method, params] = await asked;
    expect([method, params]).toEqual(['approve?', { what: 'rm -rf build' }]);
    const answered = next<[string, unknown]>((resolve) =>
      rpc.onNotification((m, p) => m === 'answered' && resolve([m, p])),
    );
    await rpc.respond(id, { decision: 'accept' });
    expect(await answered).toEqual(['answered', { decision: 'accept' }]);

    await expect(rpc.request('fail', {})).rejects.toMatchObject({ code: 'provider_error', message: 'fail: it failed' });
  });

  it('times out a request the peer never answers', async () => {
    const rpc = peer();
    await expect(rpc.request('silence', {}, 200)).rejects.toMatchObject({
      code: 'timeout',
      message: 'silence timed out after 200 ms',
    });
  });

  it('fails pending requests when the process exits, and refuses new ones', async () => {
    const rpc = peer();
    await rpc.request('echo', 'up');
    const pending = rpc.request('silence', {});
    const closed = next<string>((resolve) => rpc.onClose(resolve));
    await rpc.notify('exit');
    expect(await closed).toBe('exited with code 3');
    await expect(pending).rejects.toBeInstanceOf(BatonError);
    await expect(rpc.request('echo', 'again')).rejects.toMatchObject({ code: 'provider_error' });
  });

  it('logs and counts garbled frames without throwing, and keeps working', async () => {
    const dir = tempDir('baton-frames-');
    cleanups.push(dir.cleanup);
    const log = new FrameLog({ dir: dir.dir, name: 'peer' });
    const rpc = peer(log);
    const problems: string[] = [];
    rpc.onProblem((p) => problems.push(p));
    await rpc.notify('garble');
    expect(await rpc.request('echo', 'still fine')).toBe('still fine');
    expect(rpc.problemCount).toBe(2);
    expect(problems).toEqual(['not JSON (garbled or truncated)', 'not JSON (garbled or truncated)']);
    const lines = readFileSync(log.path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { dir: string; problem?: string });
    expect(lines.filter((l) => l.problem)).toHaveLength(2);
    expect(lines.filter((l) => l.dir === 'out').length).toBeGreaterThanOrEqual(2);
  });
});

describe('frame logs', () => {
  it('rotate and stay bounded', () => {
    const dir = tempDir('baton-rotate-');
    cleanups.push(dir.cleanup);
    const log = new FrameLog({ dir: dir.dir, name: 'codex', maxBytes: 2_000, maxFiles: 3 });
    for (let i = 0; i < 500; i++)
      log.write({ at: i, dir: 'in', frame: { method: 'item/agentMessage/delta', params: { delta: `token ${i}` } } });
    const files = readdirSync(dir.dir).sort();
    expect(files).toEqual(['codex.1.ndjson', 'codex.2.ndjson', 'codex.ndjson']);
    for (const f of files) expect(statSync(join(dir.dir, f)).size).toBeLessThanOrEqual(2_000);
    // The newest record is in the current file; the oldest were dropped.
    const current = readFileSync(join(dir.dir, 'codex.ndjson'), 'utf8').trim().split('\n');
    expect(JSON.parse(current.at(-1)!).at).toBe(499);
    const all = files.flatMap((f) => readFileSync(join(dir.dir, f), 'utf8').trim().split('\n'));
    expect(all.some((l) => JSON.parse(l).at === 0)).toBe(false);
  });

  it("keep a folder's latest few logs, so a thread whose agent starts again and again keeps a bounded few", () => {
    const dir = tempDir('baton-prune-');
    cleanups.push(dir.cleanup);
    // Six sessions, one after another, each written at its own time (set, not waited for).
    for (let n = 1; n <= 6; n++) {
      const log = new FrameLog({ dir: dir.dir, name: `psess_${n}`, maxBytes: 200, maxFiles: 2, maxLogs: 3 });
      for (let i = 0; i < 5; i++) log.write({ at: i, dir: 'in', frame: { n, i } });
      for (const file of log.files()) utimesSync(file, 1_000 + n, 1_000 + n);
    }
    expect(readdirSync(dir.dir).sort()).toEqual([
      'psess_4.1.ndjson',
      'psess_4.ndjson',
      'psess_5.1.ndjson',
      'psess_5.ndjson',
      'psess_6.1.ndjson',
      'psess_6.ndjson',
    ]);
  });
});
