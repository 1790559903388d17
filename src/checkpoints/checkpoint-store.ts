import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { git, nulSplit, type ShadowRepo } from './git.js';
import { KeyedMutex } from './keyed-mutex.js';

export interface Capture {
  /** The object to restore from: the tree of the workspace, kept by a ref under refs/baton/. */
  commit: string;
  tree: string;
  /** Changed against `base` (or against an empty tree when there is none). */
  diff: { files: number; additions: number; deletions: number; paths: string[] };
  /** Files left out because they are larger than the limit: recorded, never silent. */
  skipped: { path: string; bytes: number }[];
}

export interface CheckpointStoreOptions {
  /** Where shadow repositories live: one per workspace. */
  root: string;
  /** Files larger than this are not captured (default 10 MiB). */
  maxFileBytes?: number;
}

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

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

  constructor(private readonly options: CheckpointStoreOptions) {
    this.maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
  }

  /** Captures the workspace; `base` is the commit to diff against; `ref` names the capture. */
  capture(workspace: string, ref: string, base: string | null): Promise<Capture> {
    return this.locked(workspace, async (repo) => {
      const skipped = await this.largeChangedFiles(repo);
      const excludes = skipped.map((s) => `:(exclude,literal)${s.path}`);
      // add, write-tree and the diff against the base in one shell: one process start, not three.
      const baseTree = base ? `${base}^{tree}` : EMPTY_TREE;
      const out = await git(repo, ['add-write-diff'], { script: ['add -A -- . "$@"', 'write-tree', `diff-tree -r --numstat -z --no-renames ${baseTree} "$tree"`], args: excludes });
      const [tree = '', numstat = ''] = out.split('\n');
      // The ref points at the tree itself (no commit object needed) and keeps it from any gc;
      // a loose ref is one file, written here rather than by one more git process.
      const refPath = join(repo.gitDir, 'refs', 'baton', ...ref.split('/'));
      mkdirSync(dirname(refPath), { recursive: true });
      writeFileSync(refPath, `${tree}\n`);
      return { commit: tree, tree, diff: parseNumstat(numstat), skipped };
    });
  }

  /**
   * Brings the workspace back to a capture exactly: files created since are removed,
   * deleted ones return, changed ones are reset. Ignored and skipped files are left alone.
   * Returns the paths that changed.
   */
  restore(workspace: string, commit: string): Promise<{ changed: string[]; previousTree: string }> {
    return this.locked(workspace, async (repo) => {
      const skipped = await this.largeChangedFiles(repo);
      await git(repo, ['add', '-A', '--', '.', ...skipped.map((s) => `:(exclude,literal)${s.path}`)]);
      const previousTree = (await git(repo, ['write-tree'])).trim();
      const changed = nulSplit(await git(repo, ['diff-tree', '-r', '--name-only', '-z', previousTree, `${commit}^{tree}`]));
      await git(repo, ['read-tree', '--reset', '-u', `${commit}^{tree}`]);
      return { changed, previousTree };
    });
  }

  /** The paths that differ between two captures (commits or trees). */
  changedPaths(workspace: string, from: string, to: string): Promise<string[]> {
    return this.locked(workspace, async (repo) => nulSplit(await git(repo, ['diff-tree', '-r', '--name-only', '-z', `${from}^{tree}`, `${to}^{tree}`])));
  }

  /** Untracked or modified files over the size limit. */
  private async largeChangedFiles(repo: ShadowRepo): Promise<Capture['skipped']> {
    const candidates = nulSplit(await git(repo, ['ls-files', '-z', '--others', '--modified', '--exclude-standard']));
    const large: Capture['skipped'] = [];
    for (const path of new Set(candidates)) {
      try {
        const stat = lstatSync(join(repo.workTree, path));
        if (stat.isFile() && stat.size > this.maxFileBytes) large.push({ path, bytes: stat.size });
      } catch {
        // Deleted since listing: git records the deletion.
      }
    }
    return large;
  }

  private locked<T>(workspace: string, work: (repo: ShadowRepo) => Promise<T>): Promise<T> {
    const workTree = realpathSync(workspace);
    return this.mutex.run(workTree, async () => work(await this.repoFor(workTree)));
  }

  private async repoFor(workTree: string): Promise<ShadowRepo> {
    const id = createHash('sha256').update(workTree).digest('hex').slice(0, 24);
    const gitDir = join(this.options.root, id);
    const repo = { gitDir, workTree };
    if (!existsSync(join(gitDir, 'HEAD'))) {
      mkdirSync(gitDir, { recursive: true });
      await git(repo, ['init', '--bare', '--quiet', '--template=', gitDir], { bare: true });
      for (const [k, v] of [['core.bare', 'false'], ['core.autocrlf', 'false'], ['core.filemode', 'true'], ['core.symlinks', 'true'], ['gc.auto', '0'], ['core.precomposeunicode', 'true'], ['core.untrackedCache', 'true'], ['index.version', '4']]) {
        await git(repo, ['config', k!, v!], { bare: true });
      }
    }
    return repo;
  }
}

/** `diff-tree --numstat -z` output: "added\tdeleted\tpath" fields; binary files count "-". */
function parseNumstat(output: string): Capture['diff'] {
  let additions = 0;
  let deletions = 0;
  const paths: string[] = [];
  for (const field of nulSplit(output)) {
    const [a, d, path] = field.split('\t');
    if (path === undefined) continue;
    additions += a === '-' ? 0 : Number(a);
    deletions += d === '-' ? 0 : Number(d);
    paths.push(path);
  }
  return { files: paths.length, additions, deletions, paths };
}
