import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, parse, relative, sep } from 'node:path';
import { BatonError } from '../domain/errors.js';

/**
 * A thread's workspace is checkpointed whole (`git add -A` of the directory), so Baton
 * takes only an absolute path to an existing directory that is neither the filesystem
 * root nor overlapping Baton's own data (inside it, or containing it): checkpointing that
 * would copy Baton into itself. Relative paths would resolve against Baton's own working
 * directory, so they are refused rather than guessed at.
 */
export async function checkWorkspaceCwd(
  cwd: string,
  protectedDirs: readonly string[],
  options: WorkspaceCheckOptions = {},
): Promise<void> {
  const refuse = (why: string) =>
    new BatonError('invalid_payload', `cwd ${JSON.stringify(cwd)} ${why}`, { cwd, reason: why });
  // NUL, newlines and other control characters: no real workspace path has them.
  if (/[\u0000-\u001f\u007f]/.test(cwd)) throw refuse('contains a control character');
  if (!isAbsolute(cwd)) throw refuse('is not an absolute path');
  let real = await realpath(cwd).catch(() => null);
  if (real === null && options.mayBeAbsent) {
    // A folder Baton makes later: its parent must be a directory already.
    if (!(await isDirectory(dirname(cwd)))) throw refuse('does not exist, nor does its parent directory');
    real = await realpathOfNearest(cwd);
  } else if (real === null) throw refuse('does not exist');
  else if (!(await isDirectory(real))) throw refuse('is not a directory');
  if (real === parse(real).root) throw refuse('is the filesystem root');
  const ownWorkspaces = await Promise.all((options.ownWorkspaces ?? []).map(realpathOfNearest));
  const baton = ownWorkspaces.some((dir) => real !== dir && within(real, dir));
  for (const dir of protectedDirs) {
    const own = await realpathOfNearest(dir);
    if (within(real, own) && !baton) throw refuse(`is inside Baton's own data (${dir})`);
    if (within(own, real)) throw refuse(`contains Baton's own data (${dir})`);
  }
  for (const other of options.apartFrom ?? []) {
    const theirs = await realpathOfNearest(other);
    if (within(real, theirs) || within(theirs, real)) throw refuse(`overlaps the workspace ${other}`);
  }
}

export interface WorkspaceCheckOptions {
  /** Where Baton makes workspaces itself (forks', under its data dir): a folder below one is not Baton's data. */
  ownWorkspaces?: readonly string[];
  /** A workspace Baton is to make (a fork's): it may not exist yet. */
  mayBeAbsent?: boolean;
  /** Workspaces it must neither be in nor contain (a fork's source: their captures and rollbacks would mix). */
  apartFrom?: readonly string[];
}

const isDirectory = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

/** True when `path` is `dir` or below it. */
function within(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (rel.split(sep)[0] !== '..' && !isAbsolute(rel));
}

/** The real path of `dir`, or of its nearest existing ancestor with the rest appended (it may not exist yet). */
async function realpathOfNearest(dir: string): Promise<string> {
  const real = await realpath(dir).catch(() => null);
  if (real !== null) return real;
  const parent = dirname(dir);
  return parent === dir ? dir : join(await realpathOfNearest(parent), basename(dir));
}
