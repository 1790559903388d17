import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pino } from 'pino';
import { BatonClient, type CommandAck } from '../../src/client/baton-client.js';
import { loadConfig } from '../../src/config.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { BatonError } from '../../src/domain/errors.js';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import type { ModelTurn } from '../../src/providers/model/scripted-model-server.js';
import { tempDir } from '../support/temp.js';
import { serveExit } from '../support/serve-process.js';
import { RuntimeRequestId, ThreadId } from '../../src/domain/ids.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const token = 'data-dir-test-token-0123456789';
const mode = (path: string): number => lstatSync(path).mode & 0o777;
const octal = (m: number): string => m.toString(8).padStart(3, '0');

function start(dataDir: string, script?: ModelTurn[]): Promise<BatonApp> {
  const config = loadConfig({}, { dataDir, port: 0, model: 'scripted', ...(script ? {} : { token }) });
  return startBaton(
    config,
    pino({ level: 'silent' }),
    script ? { responder: (_r, i) => script[i] ?? { kind: 'text', text: 'more' } } : {},
  );
}

function dataDir(): string {
  const d = tempDir('baton-datadir-');
  cleanups.push(d.cleanup);
  return join(d.dir, 'data');
}

/** The pid of a process that has exited (its pid is free, as a killed Baton's would be). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the data-dir lock', () => {
  it('a second Baton on the same data dir refuses with a typed conflict naming the first one’s pid, and starts once the first stopped', async () => {
    const dir = dataDir();
    const first = await start(dir);
    let firstStopped = false;
    cleanups.push(() => (firstStopped ? undefined : first.stop()));
    expect(readFileSync(join(dir, 'baton.lock'), 'utf8').trim()).toBe(String(process.pid));

    const refused = await start(dir).then(
      (app) => (cleanups.push(() => app.stop()), null),
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(BatonError);
    expect(refused).toMatchObject({ code: 'conflict', details: { pid: process.pid } });
    expect((refused as Error).message).toContain(`pid ${process.pid}`);
    // The refused start touched nothing: the first one still serves.
    const c = await BatonClient.connect(first.url, token);
    expect((await c.query({ type: 'receipt', commandId: 'cmd_x' })).ok).toBe(true);
    c.close();

    // `baton serve` on it exits non-zero with the same clear message.
    const serve = await serveExit(dir, { BATON_TOKEN: token });
    expect(serve.code).not.toBe(0);
    expect(serve.stderr).toContain(
      `baton: conflict: the data dir ${dir} is in use by another Baton (pid ${process.pid})`,
    );

    await first.stop();
    firstStopped = true;
    expect(() => statSync(join(dir, 'baton.lock'))).toThrow();
    const second = await start(dir);
    cleanups.push(() => second.stop());
    expect(readFileSync(join(dir, 'baton.lock'), 'utf8').trim()).toBe(String(process.pid));
  });

  it('a stale lock (the pid of a process that is gone, or our own pid from an earlier life) is taken over', async () => {
    const dir = dataDir();
    mkdirSync(dir, { recursive: true });
    const gone = deadPid();
    writeFileSync(join(dir, 'baton.lock'), `${gone}\n`);
    const app = await start(dir);
    expect(readFileSync(join(dir, 'baton.lock'), 'utf8').trim()).toBe(String(process.pid));
    await app.stop();

    // A lock naming this very pid, left by an earlier process that had it (a container restarts with the same pid).
    writeFileSync(join(dir, 'baton.lock'), `${process.pid}\n`);
    const again = await start(dir);
    cleanups.push(() => again.stop());
    expect(readFileSync(join(dir, 'baton.lock'), 'utf8').trim()).toBe(String(process.pid));
  });
});

/** Every path under `root` with its mode, parents before children; a path Codex removes meanwhile (a temporary file) is left out. */
function walk(root: string): { path: string; mode: number; isDir: boolean }[] {
  const out: { path: string; mode: number; isDir: boolean }[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(root);
  } catch {
    return out;
  }
  for (const name of entries) {
    const path = join(root, name);
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    out.push({ path, mode: stat.mode & 0o777, isDir: stat.isDirectory() });
    if (stat.isDirectory()) out.push(...walk(path));
  }
  return out;
}

describe('the data dir is private to its owner', () => {
  let savedUmask = 0;
  afterEach(() => void process.umask(savedUmask));

  it('with a umask of 022, after a live Codex run with a checkpoint and a rollback: the dir 0700, Baton’s folders 0700, its files 0600, nothing reachable by others; the user’s workspace keeps its modes', async () => {
    savedUmask = process.umask(0o022);
    const dir = dataDir();
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    const ws = tempDir('baton-datadir-ws-');
    cleanups.push(ws.cleanup);
    writeFileSync(join(ws.dir, 'notes.txt'), 'first\n');
    expect(mode(join(ws.dir, 'notes.txt'))).toBe(0o644);

    const app = await start(dir, [
      { kind: 'text', text: 'Hello.' },
      { kind: 'exec', command: 'echo made-by-codex > made.txt && echo second >> notes.txt', escalated: true },
      { kind: 'text', text: 'Made it.' },
    ]);
    let stopped = false;
    cleanups.push(() => (stopped ? undefined : app.stop()));
    const c = await BatonClient.connect(app.url, app.token);
    cleanups.push(() => c.close());
    const ok = <R>(ack: CommandAck): R => {
      if (!ack.ok) throw new Error(`${ack.error.code}: ${ack.error.message}`);
      return ack.result as R;
    };
    const { threadId } = ok<{ threadId: string }>(await c.command('thread.create', { cwd: ws.dir }));
    const events: DomainEvent[] = [];
    let wake = (): void => undefined;
    await c.subscribe({ stream: 'thread', threadId: ThreadId.parse(threadId) }, (e) => (events.push(e), wake()));
    const until = (test: (e: DomainEvent) => boolean) =>
      new Promise<DomainEvent>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('event did not come')), 30_000);
        wake = () => {
          const found = events.find(test);
          if (found) (clearTimeout(timer), resolve(found));
        };
        wake();
      });
    const ended = (runId: string) =>
      until((e) => e.type === 'run.terminal' && (e.payload as { runId: string }).runId === runId);

    const one = ok<{ runId: string }>(
      await c.command('thread.message.send', { threadId: ThreadId.parse(threadId), text: 'hello' }),
    ).runId;
    await ended(one);
    const two = ok<{ runId: string }>(
      await c.command('thread.message.send', { threadId: ThreadId.parse(threadId), text: 'make a file' }),
    ).runId;
    const opened = await until((e) => e.type === 'runtime-request.opened');
    ok(
      await c.command('runtime-request.respond', {
        requestId: RuntimeRequestId.parse((opened.payload as { request: { id: string } }).request.id),
        decision: 'accept',
      }),
    );
    await ended(two);
    await until(
      (e) =>
        e.type === 'checkpoint.recorded' && (e.payload as { checkpoint: { runId: string } }).checkpoint.runId === two,
    );
    // Files Codex's shell made in the user's workspace keep the user's umask.
    expect(octal(mode(join(ws.dir, 'made.txt')))).toBe('644');
    ok(await c.command('rollback.toRun', { threadId: ThreadId.parse(threadId), runOrdinal: 1 }));
    await until((e) => e.type === 'checkpoint.restored');
    // git restored notes.txt (a child process writing the user's file): its mode is still the user's.
    expect(readFileSync(join(ws.dir, 'notes.txt'), 'utf8')).toBe('first\n');
    expect(octal(mode(join(ws.dir, 'notes.txt')))).toBe('644');

    const check = () => {
      expect(octal(mode(dir)), 'the data dir').toBe('700');
      const found = walk(dir);
      const modes = new Map(found.map((f) => [f.path, f.mode]));
      const paths = found.map((f) => f.path);
      const rel = (p: string) => relative(dir, p);
      const own = (p: string) => {
        const r = rel(p);
        return (
          [
            'token',
            'baton.lock',
            'codex',
            'checkpoints',
            'codex/home',
            'codex/home/config.toml',
            'codex/home/model-catalog.json',
          ].includes(r) ||
          /^baton\.sqlite(-wal|-shm)?$/.test(r) ||
          /^codex\/[^/]+\/frames(\/[^/]+\.ndjson)?$/.test(r) ||
          /^codex\/thr_[^/]+$/.test(r) ||
          r.startsWith('checkpoints/')
        );
      };
      const wrong: string[] = [];
      for (const { path: p, mode: m, isDir } of found) {
        if (own(p)) {
          // git keeps its objects read-only (0400); everything else Baton made is exactly 0700/0600.
          const good = isDir ? m === 0o700 : m === 0o600 || (rel(p).startsWith('checkpoints/') && (m & 0o077) === 0);
          if (!good) wrong.push(`${octal(m)} ${rel(p)}`);
        }
        // Whatever a child process made in here sits under a 0700 folder inside the data dir.
        let shielded = (m & 0o077) === 0;
        for (let up = dirname(p); !shielded && up !== dir; up = dirname(up)) shielded = modes.get(up) === 0o700;
        if (!shielded) wrong.push(`reachable by others: ${octal(m)} ${rel(p)}`);
      }
      expect(wrong).toEqual([]);
      expect(paths.map(rel)).toEqual(
        expect.arrayContaining(['token', 'baton.lock', 'baton.sqlite', 'baton.sqlite-wal', 'codex/home/config.toml']),
      );
      expect(paths.some((p) => /^codex\/[^/]+\/frames\/.+\.ndjson$/.test(rel(p)))).toBe(true);
      expect(paths.some((p) => /^checkpoints\/[^/]+\/objects\/..\//.test(rel(p)))).toBe(true);
    };
    check();
    c.close();
    await app.stop();
    stopped = true;
    // A restart over an existing data dir whose modes were loosened narrows them again.
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'baton.sqlite'), 0o644);
    chmodSync(join(dir, 'token'), 0o644);
    chmodSync(join(dir, 'checkpoints'), 0o755);
    const again = await start(dir, []);
    cleanups.push(() => again.stop());
    for (const [p, m] of [
      ['', '700'],
      ['baton.sqlite', '600'],
      ['token', '600'],
      ['checkpoints', '700'],
    ] as const)
      expect(octal(mode(join(dir, p))), p || 'the data dir').toBe(m);
  }, 90_000);
});
