import { BatonError } from '../domain/errors.js';
import { git, gitExit, GitError, gitScript, nulSplit, type ShadowRepo } from './git.js';

/**
 * The git plumbing of a three-way apply: (base -> theirs) onto ours, all three trees, in
 * Baton's shadow repository only. `repo` reads the other side's objects through
 * `alternateObjects` for the merge itself; what the workspace ends up holding is copied in.
 */

/**
 * Merges the trees; the merged tree, or the paths that conflict. `merge-tree --write-tree`
 * (git 2.38) takes its base from history only (`--merge-base` came in 2.40), so each tree
 * gets a commit whose parent is the base's; the commits are never referenced and written
 * with a fixed date, so a merge repeated writes the same ones.
 */
export async function mergeTrees(
  repo: ShadowRepo,
  base: string,
  ours: string,
  theirs: string,
): Promise<{ tree: string } | { conflicts: string[] }> {
  const commit = async (tree: string, parent?: string) =>
    (await git(repo, ['commit-tree', `${tree}^{tree}`, ...(parent ? ['-p', parent] : []), '-m', 'baton merge'])).trim();
  const b = await commit(base);
  const [o, t] = [await commit(ours, b), await commit(theirs, b)];
  const { code, out } = await gitExit(
    repo,
    ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', o, t],
    [0, 1],
  );
  // "<tree>\0<conflicted path>\0...": each path once per stage it has.
  const [tree, ...paths] = nulSplit(out);
  if (code === 0) return { tree: tree! };
  return { conflicts: [...new Set(paths)] };
}

/**
 * Copies into `repo`'s own objects what the tree `to` holds that `ours` does not and only
 * the alternate has (the fork's files and folders), so the workspace can be written from it
 * and its checkpoints never depend on another repository. The packing reads through the
 * alternate; the unpacking must not see it, or it would skip exactly these objects as there.
 */
export async function copyNewObjects(repo: ShadowRepo, ours: string, to: string): Promise<void> {
  await gitScript(
    repo,
    `printf '%s\\n^%s\\n' "$2" "$1" | git pack-objects --revs -q --stdout |
  GIT_ALTERNATE_OBJECT_DIRECTORIES= git unpack-objects -q`,
    [ours, to],
    'git pack-objects',
  );
}

/**
 * Takes the workspace from `ours` (what the shadow index holds, stat data and all) to `to`.
 * git checks every path it would write before writing any: a file changed since `ours` was
 * staged, or an untracked one in the way, refuses the whole apply (a typed `conflict`
 * naming them) with nothing written. A failure while writing puts `ours` back.
 */
export async function applyTree(repo: ShadowRepo, ours: string, to: string): Promise<void> {
  try {
    await git(repo, ['read-tree', '-m', '-u', ours, to]);
  } catch (error) {
    const refused = error instanceof GitError ? pathsInTheWay(error.stderr) : null;
    if (refused)
      throw new BatonError('conflict', `the workspace has changes in the way of the merge: ${refused.join(', ')}`, {
        paths: refused,
      });
    await git(repo, ['read-tree', '--reset', '-u', ours]).catch(() => undefined);
    throw error;
  }
}

/** The paths read-tree names when it refuses before writing anything; null for any other failure. */
function pathsInTheWay(stderr: string): string[] | null {
  if (!/not uptodate|would be (overwritten|removed) by merge/.test(stderr)) return null;
  const named = [...stderr.matchAll(/(?:Entry|working tree file) '(.+?)' (?:not uptodate|would be)/g)].map(
    (m) => m[1]!,
  );
  // Several files are listed one a line, indented by a tab.
  const listed = stderr
    .split('\n')
    .filter((l) => l.startsWith('\t'))
    .map((l) => l.slice(1));
  return [...new Set([...named, ...listed])];
}
