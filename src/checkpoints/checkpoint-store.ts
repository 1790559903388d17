import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { git, gitScript, nulSplit, type ShadowRepo } from './git.js';
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

  constructor(private readonly options: CheckpointStoreOptions) {
    this.maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
  }

  /** Captures the workspace; `base` is the commit to diff against; `ref` names the capture. */
  capture(workspace: string, ref: string, base: string | null): Promise<Capture> {
    return this.locked(workspace, async (repo) => {
      const staged = await this.stage(repo, base ? `${base}^{tree}` : EMPTY_TREE);
      // The ref points at the tree itself (no commit object needed) and keeps it from any gc;
      // a loose ref is one file, written here rather than by one more git process.
      const refPath = join(repo.gitDir, 'refs', 'baton', ...ref.split('/'));
      mkdirSync(dirname(refPath), { recursive: true });
      writeFileSync(refPath, `${staged.tree}\n`);
      return { commit: staged.tree, ...staged };
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
      const changed = nulSplit(await git(repo, ['diff-tree', '-r', '--name-only', '-z', previousTree, `${commit}^{tree}`]));
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
    const skipped = this.overLimit(repo, nulSplit(await git(repo, ['ls-files', '-z', '--others', '--exclude-standard'])));
    const excludes = skipped.map((x) => `:(exclude,literal)${x.path}`);
    // Without a base (a restore's snapshot of the present), there is nothing to diff.
    // "$1" is the base tree ('' for none); the excludes follow. The tree id comes first, on its own line.
    const out = await gitScript(repo, STAGE_SCRIPT, [baseTree ?? '', ...excludes]);
    const newline = out.indexOf('\n');
    let tree = out.slice(0, newline).trim();
    let diff = parseNumstat(out.slice(newline + 1));
    if (!baseTree) return { tree, diff, skipped };
    const grown = this.overLimit(repo, diff.paths.filter((p) => !skipped.some((x) => x.path === p)));
    if (grown.length) {
      tree = await this.putBack(repo, grown.map((g) => g.path), baseTree, tree);
      diff = parseNumstat(await git(repo, ['diff-tree', '-r', '--numstat', '-z', '--no-renames', baseTree, tree]));
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
      if (written) rmSync(join(repo.gitDir, 'objects', written.slice(0, 2), written.slice(2)), { force: true });
    }
    return (await git(repo, ['write-tree'])).trim();
  }

  /** The paths that differ between two captures (commits or trees). */
  changedPaths(workspace: string, from: string, to: string): Promise<string[]> {
    return this.locked(workspace, async (repo) => nulSplit(await git(repo, ['diff-tree', '-r', '--name-only', '-z', `${from}^{tree}`, `${to}^{tree}`])));
  }

  /** Which of these paths are regular files over the size limit. */
  private overLimit(repo: ShadowRepo, candidates: string[]): Capture['skipped'] {
    const large: Capture['skipped'] = [];
    for (const path of new Set(candidates)) {
      try {
        const stat = lstatSync(join(repo.workTree, path));
        if (stat.isFile() && stat.size > this.maxFileBytes) large.push({ path, bytes: stat.size });
      } catch {
        // Deleted: git records the deletion.
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
