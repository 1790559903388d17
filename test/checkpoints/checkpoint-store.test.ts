import { describe, expect, it, afterEach } from 'vitest';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { join, relative } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { tempDir } from '../support/temp.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function setup(options: { gitRepo?: boolean; maxFileBytes?: number } = {}) {
  const ws = tempDir('baton-ws-');
  const data = tempDir('baton-data-');
  cleanups.push(ws.cleanup, data.cleanup);
  if (options.gitRepo) {
    const run = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: ws.dir,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'u',
          GIT_AUTHOR_EMAIL: 'u@x',
          GIT_COMMITTER_NAME: 'u',
          GIT_COMMITTER_EMAIL: 'u@x',
        },
      });
    run('init', '-q', '-b', 'main');
    writeFileSync(join(ws.dir, 'README.md'), 'user repo\n');
    run('add', 'README.md');
    run('commit', '-q', '-m', 'user commit');
    writeFileSync(join(ws.dir, 'staged.txt'), 'staged by the user\n');
    run('add', 'staged.txt');
    run('stash', 'list');
  }
  const store = new CheckpointStore({
    root: join(data.dir, 'checkpoints'),
    ...(options.maxFileBytes ? { maxFileBytes: options.maxFileBytes } : {}),
  });
  return { ws: ws.dir, store };
}

/** Every file below `dir` (symlinks as their target, modes included), skipping `skip`. */
function snapshot(dir: string, skip = '.git'): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const rel = relative(dir, p);
      if (rel === skip) continue;
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[rel] = `link:${readlinkSync(p)}`;
      else if (st.isDirectory()) walk(p);
      else out[rel] = `${st.mode & 0o111 ? 'x' : '-'}:${createHash('sha1').update(readFileSync(p)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

/** A byte-level fingerprint of a directory tree: names, modes, contents. */
function fingerprint(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      h.update(`${relative(dir, p)}|${st.mode}|`);
      if (st.isDirectory()) walk(p);
      else if (st.isSymbolicLink()) h.update(readlinkSync(p));
      else h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

describe('CheckpointStore on real git and real folders', () => {
  it('round-trips shell-made files, deletions, renames, binaries, symlinks, exec bits, spaces and non-ASCII names', async () => {
    const { ws, store } = setup();
    writeFileSync(join(ws, 'keep.txt'), 'one\ntwo\n');
    writeFileSync(join(ws, 'gone.txt'), 'delete me\n');
    writeFileSync(join(ws, 'old name.txt'), 'rename me\n');
    const base = await store.capture(ws, 'thr/0', null);
    const before = snapshot(ws);

    execFileSync(
      'sh',
      [
        '-c',
        'echo "from a shell" > shell.txt && mkdir -p "dir with space" && printf "x" > "dir with space/ü ñ 日本.txt"',
      ],
      { cwd: ws },
    );
    rmSync(join(ws, 'gone.txt'));
    renameSync(join(ws, 'old name.txt'), join(ws, 'new name.txt'));
    writeFileSync(join(ws, 'blob.bin'), Buffer.from([0, 1, 2, 255, 0, 7]));
    symlinkSync('keep.txt', join(ws, 'link-to-keep'));
    writeFileSync(join(ws, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(ws, 'run.sh'), 0o755);
    writeFileSync(join(ws, 'keep.txt'), 'one\nTWO\nthree\n');
    const after = snapshot(ws);
    const run = await store.capture(ws, 'thr/1', base.commit);
    expect(run.diff.files).toBe(9);
    expect(run.diff.paths).toEqual(
      expect.arrayContaining([
        'shell.txt',
        'gone.txt',
        'new name.txt',
        'old name.txt',
        'blob.bin',
        'link-to-keep',
        'run.sh',
        'dir with space/ü ñ 日本.txt',
        'keep.txt',
      ]),
    );
    expect(run.diff.additions).toBeGreaterThan(0);
    expect(run.diff.deletions).toBeGreaterThan(0);

    await store.restore(ws, base.commit);
    expect(snapshot(ws)).toEqual(before);
    expect(existsSync(join(ws, 'shell.txt'))).toBe(false);
    await store.restore(ws, run.commit);
    expect(snapshot(ws)).toEqual(after);
    expect(statSync(join(ws, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(lstatSync(join(ws, 'link-to-keep')).isSymbolicLink()).toBe(true);
  });

  it("never touches the user's repository: .git is byte-identical after capture and restore", async () => {
    const { ws, store } = setup({ gitRepo: true });
    const gitBefore = fingerprint(join(ws, '.git'));
    const base = await store.capture(ws, 'thr/0', null);
    writeFileSync(join(ws, 'new.txt'), 'agent wrote this\n');
    writeFileSync(join(ws, 'README.md'), 'changed\n');
    await store.capture(ws, 'thr/1', base.commit);
    await store.restore(ws, base.commit);
    expect(fingerprint(join(ws, '.git'))).toBe(gitBefore);
    expect(readFileSync(join(ws, 'README.md'), 'utf8')).toBe('user repo\n');
    expect(existsSync(join(ws, 'new.txt'))).toBe(false);
    // The user's staged file is still staged in the user's own index.
    expect(execFileSync('git', ['diff', '--cached', '--name-only'], { cwd: ws }).toString().trim()).toBe('staged.txt');
  });

  it("honours the workspace's .gitignore and records skipped large files", async () => {
    const { ws, store } = setup({ maxFileBytes: 1_000 });
    writeFileSync(join(ws, '.gitignore'), 'node_modules/\n*.log\n');
    mkdirSync(join(ws, 'node_modules'));
    writeFileSync(join(ws, 'node_modules', 'dep.js'), 'x');
    writeFileSync(join(ws, 'debug.log'), 'noise');
    writeFileSync(join(ws, 'big.dat'), Buffer.alloc(5_000, 1));
    writeFileSync(join(ws, 'small.txt'), 'ok');
    const cap = await store.capture(ws, 'thr/0', null);
    expect(cap.diff.paths.sort()).toEqual(['.gitignore', 'small.txt']);
    expect(cap.skipped).toEqual([{ path: 'big.dat', bytes: 5_000 }]);
    // Restoring leaves ignored and skipped files alone.
    writeFileSync(join(ws, 'later.txt'), 'x');
    await store.restore(ws, cap.commit);
    expect(existsSync(join(ws, 'later.txt'))).toBe(false);
    expect(existsSync(join(ws, 'big.dat'))).toBe(true);
    expect(existsSync(join(ws, 'debug.log'))).toBe(true);
  });

  it('puts a tracked file that grew past the limit back to its last captured version, and says so', async () => {
    const { ws, store } = setup({ maxFileBytes: 1_000 });
    writeFileSync(join(ws, 'log.txt'), 'small\n');
    const first = await store.capture(ws, 'thr/0', null);
    writeFileSync(join(ws, 'log.txt'), Buffer.alloc(5_000, 65));
    writeFileSync(join(ws, 'other.txt'), 'fine');
    const second = await store.capture(ws, 'thr/1', first.commit);
    expect(second.skipped).toEqual([{ path: 'log.txt', bytes: 5_000 }]);
    expect(second.diff.paths).toEqual(['other.txt']);
    // The file is tracked at its small version, so restoring the first capture brings it back.
    await store.restore(ws, first.commit);
    expect(readFileSync(join(ws, 'log.txt'), 'utf8')).toBe('small\n');
    expect(existsSync(join(ws, 'other.txt'))).toBe(false);
  });

  it('serializes concurrent captures in one workspace', async () => {
    const { ws, store } = setup();
    writeFileSync(join(ws, 'a.txt'), 'a');
    const caps = await Promise.all(Array.from({ length: 6 }, (_, i) => store.capture(ws, `thr/${i}`, null)));
    // Same content, same tree: no capture saw a half-written index.
    expect(new Set(caps.map((c) => c.tree)).size).toBe(1);
    expect(caps.every((c) => c.diff.paths.join() === 'a.txt')).toBe(true);
  });
});
