import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { BatonError } from '../../src/domain/errors.js';
import { tempDir } from '../support/temp.js';

/**
 * CheckpointStore.merge with real git: a fork's changes (base -> theirs, captured in the
 * fork's own shadow repository) applied three-way to another workspace's current files.
 */
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

const lines = (...changes: [number, string][]) => {
  const l = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
  for (const [i, text] of changes) l[i - 1] = text;
  return `${l.join('\n')}\n`;
};

/** A source workspace captured as the base, and a fork workspace written from that capture. */
async function forked(options: { maxFileBytes?: number; gitRepo?: boolean } = {}) {
  const t = tempDir('baton-merge-');
  cleanups.push(t.cleanup);
  const ws = join(t.dir, 'source');
  const forkWs = join(t.dir, 'fork');
  mkdirSync(ws);
  if (options.gitRepo) execFileSync('git', ['init', '-q'], { cwd: ws });
  writeFileSync(join(ws, 'a.txt'), lines());
  writeFileSync(join(ws, 'gone.txt'), 'to be deleted\n');
  const store = new CheckpointStore({ root: join(t.dir, 'checkpoints'), ...options });
  const base = await store.capture(ws, 'source/base', null);
  await store.materialize(ws, base.commit, forkWs);
  await store.capture(forkWs, 'fork/base', null);
  /** The fork's work, captured as its latest point, then merged into the source. */
  const merge = async (forkWork: () => void) => {
    forkWork();
    const theirs = await store.capture(forkWs, 'fork/1', base.commit);
    return store.merge(ws, forkWs, base.commit, theirs.commit, 'source/merge');
  };
  return { t, ws, forkWs, store, merge };
}

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

/** Names, kinds and bytes of everything below `dir`, .git included. */
function fingerprint(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      h.update(`${p}:${st.mode}\n`);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

async function refusal(work: Promise<unknown>): Promise<BatonError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BatonError);
  return error as BatonError;
}

describe('CheckpointStore.merge', () => {
  it("applies the fork's additions, edits and deletions, merging a file changed on both sides in different places", async () => {
    const { ws, forkWs, merge } = await forked();
    writeFileSync(join(ws, 'a.txt'), lines([2, 'source']));
    writeFileSync(join(ws, 'own.txt'), 'source only\n');
    const merged = await merge(() => {
      writeFileSync(join(forkWs, 'a.txt'), lines([8, 'fork']));
      mkdirSync(join(forkWs, 'dir'));
      writeFileSync(join(forkWs, 'dir', 'new.txt'), 'from the fork\n');
      rmSync(join(forkWs, 'gone.txt'));
    });
    expect(read(ws, 'a.txt')).toBe(lines([2, 'source'], [8, 'fork']));
    expect(read(ws, 'dir/new.txt')).toBe('from the fork\n');
    expect(existsSync(join(ws, 'gone.txt'))).toBe(false);
    expect(read(ws, 'own.txt')).toBe('source only\n');
    expect(merged.capture.diff.paths.sort()).toEqual(['a.txt', 'dir/new.txt', 'gone.txt']);
    // The fork's files are untouched.
    expect(read(forkWs, 'a.txt')).toBe(lines([8, 'fork']));
    expect(existsSync(join(forkWs, 'own.txt'))).toBe(false);
  });

  it("keeps the merged capture restorable without the fork's repository, and the tree before it undoes it", async () => {
    const { t, ws, forkWs, store, merge } = await forked();
    writeFileSync(join(ws, 'a.txt'), lines([2, 'source']));
    const merged = await merge(() => writeFileSync(join(forkWs, 'new.txt'), 'new\n'));
    // Remove every other shadow repository but the source's (the one holding refs/baton/source).
    const repos = readdirSync(join(t.dir, 'checkpoints'));
    const sourceRepo = repos.find((r) => existsSync(join(t.dir, 'checkpoints', r, 'refs', 'baton', 'source')))!;
    for (const r of repos.filter((r) => r !== sourceRepo)) rmSync(join(t.dir, 'checkpoints', r), { recursive: true });

    await store.restore(ws, merged.previousTree);
    expect(readdirSync(ws).sort()).toEqual(['a.txt', 'gone.txt']);
    expect(read(ws, 'a.txt')).toBe(lines([2, 'source']));
    await store.restore(ws, merged.capture.commit);
    expect(read(ws, 'new.txt')).toBe('new\n');
  });

  it('refuses the same lines changed on both sides as a typed conflict naming the file, and writes nothing', async () => {
    const { ws, forkWs, merge } = await forked();
    writeFileSync(join(ws, 'a.txt'), lines([5, 'source']));
    const before = fingerprint(ws);
    const error = await refusal(
      merge(() => {
        writeFileSync(join(forkWs, 'a.txt'), lines([5, 'fork']));
        writeFileSync(join(forkWs, 'clean.txt'), 'would merge cleanly\n');
      }),
    );
    expect(error.code).toBe('conflict');
    expect(error.details).toEqual({ paths: ['a.txt'] });
    expect(fingerprint(ws)).toBe(before);
  });

  it('refuses a file changed on one side and deleted on the other', async () => {
    const { ws, forkWs, merge } = await forked();
    rmSync(join(ws, 'a.txt'));
    const before = fingerprint(ws);
    const error = await refusal(merge(() => writeFileSync(join(forkWs, 'a.txt'), lines([3, 'fork']))));
    expect(error).toMatchObject({ code: 'conflict', details: { paths: ['a.txt'] } });
    expect(fingerprint(ws)).toBe(before);
  });

  it('refuses a file the merge would write over that no capture holds (one over the size limit)', async () => {
    const { ws, forkWs, merge } = await forked({ maxFileBytes: 100 });
    writeFileSync(join(ws, 'big.bin'), 'x'.repeat(500));
    const before = fingerprint(ws);
    const error = await refusal(
      merge(() => {
        writeFileSync(join(forkWs, 'big.bin'), 'small\n');
        writeFileSync(join(forkWs, 'other.txt'), 'other\n');
      }),
    );
    expect(error).toMatchObject({ code: 'conflict', details: { paths: ['big.bin'] } });
    expect(fingerprint(ws)).toBe(before);
  });

  it("leaves the workspace's own git repository alone", async () => {
    const { ws, forkWs, merge } = await forked({ gitRepo: true });
    const gitBefore = fingerprint(join(ws, '.git'));
    await merge(() => writeFileSync(join(forkWs, 'new.txt'), 'new\n'));
    expect(read(ws, 'new.txt')).toBe('new\n');
    expect(fingerprint(join(ws, '.git'))).toBe(gitBefore);
    expect(existsSync(join(forkWs, '.git'))).toBe(false);
  });
});
