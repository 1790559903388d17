import { createHash, randomBytes } from 'node:crypto';
import { access, lstat, mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { BatonError } from '../domain/errors.js';
import { git, gitScript, nulSplit, type ShadowRepo } from './git.js';
import { KeyedMutex } from './keyed-mutex.js';
import { applyTree, copyNewObjects, mergeTrees } from './three-way.js';

export interface Capture {
  /** The object to restore from: the tree of the workspace, kept by a ref under refs/baton/. */
  commit: string;
  tree: string;
  /** Changed against `base` (or against an empty tree when there is none). */
  diff: { files: number; additions: number; deletions: number; paths: string[] };
  /** Files left out because they are larger than the limit: recorded, never silent. */
  skipped: { path: string; bytes: number }[];
}

/** A three-way apply done: the workspace after it, captured, and its tree before it (what undoes it). */
export interface Merged {
  capture: Capture;
  previousTree: string;
}

export interface CheckpointStoreOptions {
  /** Where shadow repositories live: one per workspace. */
  root: string;
  /** Files larger than this are not captured (default 10 MiB). */
  maxFileBytes?: number;
  /** A git process running longer than this is killed and its capture or restore fails (default 5 minutes). */
  gitTimeoutMs?: number;
}

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** How many lstat calls are in flight at once while looking for files over the size limit. */
const STAT_BATCH = 64;
/** How many diff lines are parsed between two turns of the event loop. */
const PARSE_SLICE = 5_000;

/** Stage everything (but the excluded paths), write the tree, print it, and diff it from the base. */
const STAGE_SCRIPT = `base=$1; shift
git add -A -- . "$@"
tree=$(git write-tree)
printf '%s\\n' "$tree"
if [ -n "$base" ]; then git diff-tree -r --numstat -z --no-renames "$base" "$tree"; fi`;

/**
 * Baton's own git-based checkpoints. Each workspace gets a shadow git directory under
 * Baton's data dir whose work tree is the workspace; a capture is `add -A` + `write-tree`
 * into that shadow repository, its tree kept alive by a ref under `refs/baton/`.
 * It works whether or not the workspace is a git repository, honours the workspace's
 * `.gitignore` files, and captures whatever changed, shell-made files included.
 */
export class CheckpointStore {
  private readonly mutex = new KeyedMutex();
  private readonly maxFileBytes: number;
  private readonly gitTimeoutMs: number;

  constructor(private readonly options: CheckpointStoreOptions) {
    this.maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
    this.gitTimeoutMs = options.gitTimeoutMs ?? 5 * 60_000;
  }

  /** Where the shadow repositories live: never a workspace, nor inside one. */
  get root(): string {
    return this.options.root;
  }

  /** Captures the workspace; `base` is the commit to diff against; `ref` names the capture. */
  capture(workspace: string, ref: string, base: string | null): Promise<Capture> {
    return this.locked(workspace, async (repo) => {
      const staged = await this.stage(repo, base ? `${base}^{tree}` : EMPTY_TREE);
      await keep(repo, ref, staged.tree);
      return { commit: staged.tree, ...staged };
    });
  }

  /**
   * Applies the changes from `base` to `theirs` (a capture of the workspace `from`, read from
   * that workspace's own shadow repository) to the workspace's current files, three-way,
   * and captures the result as `ref`, diffed against the files before. A conflict (the same
   * lines changed on both sides, a file changed on one side and deleted on the other, a
   * change or an untracked file in the way) is a typed `conflict` with `details.paths`, and
   * the workspace is left as it was. Ignored files and files over the size limit stay as they are.
   */
  merge(workspace: string, from: string, base: string, theirs: string, ref: string): Promise<Merged> {
    return this.locked(workspace, async (repo) => {
      const fromGitDir = this.gitDirOf(await realpath(from).catch(() => resolve(from)));
      if (!(await exists(join(fromGitDir, 'HEAD'))))
        throw new BatonError('not_found', `no checkpoints of ${from} are kept here`, { from });
      const reading = { ...repo, alternateObjects: join(fromGitDir, 'objects') };
      const { tree: ours } = await this.stage(repo, null);
      const merged = await mergeTrees(reading, base, ours, theirs);
      if ('conflicts' in merged) {
        const paths = merged.conflicts;
        throw new BatonError('conflict', `the changes conflict with the workspace's own in ${paths.join(', ')}`, {
          paths,
        });
      }
      await copyNewObjects(reading, ours, merged.tree);
      await applyTree(repo, ours, merged.tree);
      try {
        const staged = await this.stage(repo, ours);
        await keep(repo, ref, staged.tree);
        return { capture: { commit: staged.tree, ...staged }, previousTree: ours };
      } catch (error) {
        // Applied but not captured: put the files back rather than leave a merge nothing records.
        await git(repo, ['read-tree', '--reset', '-u', ours]).catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * Brings the workspace back to a capture exactly: files created since are removed,
   * deleted ones return, changed ones are reset. Ignored and skipped files are left alone.
   * Returns the paths that changed.
   */
  restore(workspace: string, commit: string): Promise<{ changed: string[]; previousTree: string }> {
    return this.locked(workspace, async (repo) => {
      const { tree: previousTree } = await this.stage(repo, null);
      const changed = nulSplit(
        await git(repo, ['diff-tree', '-r', '--name-only', '-z', previousTree, `${commit}^{tree}`]),
      );
      await git(repo, ['read-tree', '--reset', '-u', `${commit}^{tree}`]);
      return { changed, previousTree };
    });
  }

  /**
   * Stages the workspace into the shadow index and writes its tree. New files over the
   * size limit are left out before anything is hashed (a scan of untracked files only, fast
   * with the untracked cache); a tracked file that grew past the limit is caught in the diff
   * afterwards and put back to its base version, its new blob deleted. Then add, write-tree
   * and the diff run in one shell.
   */
  private async stage(repo: ShadowRepo, baseTree: string | null): Promise<Omit<Capture, 'commit'>> {
    const skipped = await this.overLimit(
      repo,
      nulSplit(await git(repo, ['ls-files', '-z', '--others', '--exclude-standard'])),
    );
    const excludes = skipped.map((x) => `:(exclude,literal)${x.path}`);
    // Without a base (a restore's snapshot of the present), there is nothing to diff.
    // "$1" is the base tree ('' for none); the excludes follow. The tree id comes first, on its own line.
    const out = await gitScript(repo, STAGE_SCRIPT, [baseTree ?? '', ...excludes], 'git add -A');
    const newline = out.indexOf('\n');
    let tree = out.slice(0, newline).trim();
    let diff = await parseNumstat(out.slice(newline + 1));
    if (!baseTree) return { tree, diff, skipped };
    const skippedPaths = new Set(skipped.map((x) => x.path));
    const grown = await this.overLimit(
      repo,
      diff.paths.filter((p) => !skippedPaths.has(p)),
    );
    if (grown.length) {
      tree = await this.putBack(
        repo,
        grown.map((g) => g.path),
        baseTree,
        tree,
      );
      diff = await parseNumstat(
        await git(repo, ['diff-tree', '-r', '--numstat', '-z', '--no-renames', baseTree, tree]),
      );
    }
    return { tree, diff, skipped: [...skipped, ...grown] };
  }

  /** Puts paths back to their base version in the index (or out of it), dropping the blobs just written. */
  private async putBack(repo: ShadowRepo, paths: string[], baseTree: string, tree: string): Promise<string> {
    for (const path of paths) {
      const written = nulSplit(await git(repo, ['ls-tree', '-z', tree, '--', path]))[0]?.split(/\s/)[2];
      const before = nulSplit(await git(repo, ['ls-tree', '-z', baseTree, '--', path]))[0];
      if (before) {
        const [meta, name] = before.split('\t');
        const [mode, , sha] = meta!.split(' ');
        await git(repo, ['update-index', '-z', '--index-info'], { input: `${mode} ${sha}\t${name}\0` });
      } else {
        await git(repo, ['update-index', '--force-remove', '--', path]);
      }
      if (written) await rm(join(repo.gitDir, 'objects', written.slice(0, 2), written.slice(2)), { force: true });
    }
    return (await git(repo, ['write-tree'])).trim();
  }

  /**
   * Writes a capture of the workspace `source` into `target`, a fork's own workspace. A
   * target that does not exist yet is written beside it and renamed in whole, so it never
   * exists half-made; one that exists (given empty, or written by an attempt that crashed
   * before it was recorded) is written over, which gives the same files again. The capture
   * is read through an index of its own: the source's files and shadow index are not touched.
   */
  async materialize(source: string, commit: string, target: string): Promise<void> {
    const gitDir = this.gitDirOf(await realpath(source).catch(() => resolve(source)));
    if (!(await exists(join(gitDir, 'HEAD'))))
      throw new BatonError('not_found', `no checkpoints of ${source} are kept here`, { source });
    await this.mutex.run(`materialize:${resolve(target)}`, async () => {
      const staging = join(dirname(target), `.${basename(target)}.materializing`);
      // Left by an attempt that crashed half-way: started again from nothing.
      await rm(staging, { recursive: true, force: true });
      const present = await exists(target);
      const into = present ? target : staging;
      if (!present) {
        await mkdir(dirname(target), { recursive: true, mode: 0o700 });
        await mkdir(into);
      }
      const indexFile = join(gitDir, `index.materialize-${randomBytes(6).toString('hex')}`);
      try {
        const repo = { gitDir, workTree: into, timeoutMs: this.gitTimeoutMs, indexFile };
        await git(repo, ['read-tree', '--reset', '-u', `${commit}^{tree}`]);
        if (!present) await rename(into, target);
      } catch (error) {
        if (!present) await rm(into, { recursive: true, force: true });
        throw error;
      } finally {
        await rm(indexFile, { force: true });
      }
    });
  }

  /** The paths that differ between two captures (commits or trees). */
  changedPaths(workspace: string, from: string, to: string): Promise<string[]> {
    return this.locked(workspace, async (repo) =>
      nulSplit(await git(repo, ['diff-tree', '-r', '--name-only', '-z', `${from}^{tree}`, `${to}^{tree}`])),
    );
  }

  /**
   * The shadow repository of a workspace, to read captures from (the workspace itself is
   * not needed: git runs bare in the shadow git dir), or null when none is kept. Unlocked:
   * a capture adds objects but never changes one, and nothing here prunes them.
   */
  async reader(workspace: string): Promise<ShadowRepo | null> {
    const gitDir = this.gitDirOf(await realpath(workspace).catch(() => resolve(workspace)));
    if (!(await exists(join(gitDir, 'HEAD')))) return null;
    return { gitDir, workTree: gitDir, timeoutMs: this.gitTimeoutMs };
  }

  /**
   * Which of these paths are regular files over the size limit. A workspace can hold a great
   * many new files: they are looked at asynchronously, a batch at a time, so the event loop
   * is never held for the whole list.
   */
  private async overLimit(repo: ShadowRepo, candidates: string[]): Promise<Capture['skipped']> {
    const large: Capture['skipped'] = [];
    // git lists each path once: no need to deduplicate.
    for (let i = 0; i < candidates.length; i += STAT_BATCH) {
      const batch = candidates.slice(i, i + STAT_BATCH);
      // A path that is gone was deleted: git records the deletion.
      const stats = await Promise.all(batch.map((path) => lstat(join(repo.workTree, path)).catch(() => null)));
      stats.forEach((stat, k) => {
        if (stat?.isFile() && stat.size > this.maxFileBytes) large.push({ path: batch[k]!, bytes: stat.size });
      });
    }
    return large;
  }

  private async locked<T>(workspace: string, work: (repo: ShadowRepo) => Promise<T>): Promise<T> {
    const workTree = await realpath(workspace);
    return this.mutex.run(workTree, async () => work(await this.repoFor(workTree)));
  }

  private gitDirOf(workTree: string): string {
    return join(this.options.root, createHash('sha256').update(workTree).digest('hex').slice(0, 24));
  }

  private async repoFor(workTree: string): Promise<ShadowRepo> {
    const repo = { gitDir: this.gitDirOf(workTree), workTree, timeoutMs: this.gitTimeoutMs };
    if (!(await exists(join(repo.gitDir, 'HEAD')))) await this.initialise(repo);
    return repo;
  }

  /**
   * Makes the shadow repository beside its place and renames it in when it is complete, so
   * a git killed half-way (a time limit, a crash) never leaves a repository that looks made.
   */
  private async initialise(repo: ShadowRepo): Promise<void> {
    const staging = { ...repo, gitDir: `${repo.gitDir}.init-${randomBytes(6).toString('hex')}` };
    await mkdir(staging.gitDir, { recursive: true, mode: 0o700 });
    try {
      // --shared=0600: git makes the repository's files 0600 (objects 0400) and folders 0700, whatever the umask.
      await git(staging, ['init', '--bare', '--quiet', '--template=', '--shared=0600', staging.gitDir], { bare: true });
      for (const [k, v] of [
        ['core.bare', 'false'],
        ['core.autocrlf', 'false'],
        ['core.filemode', 'true'],
        ['core.symlinks', 'true'],
        ['gc.auto', '0'],
        ['core.precomposeunicode', 'true'],
        ['core.untrackedCache', 'true'],
        ['index.version', '4'],
      ]) {
        await git(staging, ['config', k!, v!], { bare: true });
      }
      // One that was made meanwhile is kept; a half-made one (no HEAD, from an older Baton) is replaced.
      if (await exists(join(repo.gitDir, 'HEAD'))) return;
      await rm(repo.gitDir, { recursive: true, force: true });
      await rename(staging.gitDir, repo.gitDir);
    } finally {
      await rm(staging.gitDir, { recursive: true, force: true });
    }
  }
}

/**
 * Keeps a capture under `refs/baton/<ref>`: the ref points at the tree itself (no commit
 * object needed) and keeps it from any gc; a loose ref is one file, written here rather
 * than by one more git process.
 */
async function keep(repo: ShadowRepo, ref: string, tree: string): Promise<void> {
  const refPath = join(repo.gitDir, 'refs', 'baton', ...ref.split('/'));
  await mkdir(dirname(refPath), { recursive: true, mode: 0o700 });
  await writeFile(refPath, `${tree}\n`, { mode: 0o600 });
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Lets the event loop run: a long list is worked through a slice at a time. */
const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * `diff-tree --numstat -z` output: "added\tdeleted\tpath" fields; binary files count "-".
 * A capture can list every file of a big workspace, so it yields now and then.
 */
async function parseNumstat(output: string): Promise<Capture['diff']> {
  let additions = 0;
  let deletions = 0;
  const paths: string[] = [];
  const fields = nulSplit(output);
  for (let i = 0; i < fields.length; i++) {
    if (i > 0 && i % PARSE_SLICE === 0) await breathe();
    const [a, d, path] = fields[i]!.split('\t');
    if (path === undefined) continue;
    additions += a === '-' ? 0 : Number(a);
    deletions += d === '-' ? 0 : Number(d);
    paths.push(path);
  }
  return { files: paths.length, additions, deletions, paths };
}
