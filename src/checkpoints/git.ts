import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BatonError } from '../domain/errors.js';

/**
 * Runs git against Baton's shadow repository only: the git dir, the work tree and the index
 * are always named explicitly and no system or global config is read, so the user's own
 * repository (its .git, index, HEAD, branches, stash, hooks, config) is never touched.
 */
export interface ShadowRepo {
  gitDir: string;
  workTree: string;
  /** A git process still running after this long is killed (with its children). */
  timeoutMs: number;
  /** Another index than the shadow repository's own (a fork's workspace is written through one of its own). */
  indexFile?: string;
  /** Another shadow repository's objects, readable for this one command (a merge-back reads the fork's). */
  alternateObjects?: string;
}

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (${code}): ${stderr.trim()}`);
  }
}

/** A typed `timeout`: a rollback whose git hangs is refused as such, never as `internal`. */
export class GitTimeoutError extends BatonError {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super('timeout', `${what} timed out after ${timeoutMs} ms and was killed`, { timeoutMs });
  }
}

function shadowEnv(repo: ShadowRepo): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Drop every GIT_* the parent may carry (GIT_DIR of an enclosing hook, say).
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  return {
    ...env,
    GIT_DIR: repo.gitDir,
    GIT_WORK_TREE: repo.workTree,
    GIT_INDEX_FILE: repo.indexFile ?? `${repo.gitDir}/index`,
    ...(repo.alternateObjects ? { GIT_ALTERNATE_OBJECT_DIRECTORIES: repo.alternateObjects } : {}),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Baton',
    GIT_AUTHOR_EMAIL: 'baton@localhost',
    GIT_COMMITTER_NAME: 'Baton',
    GIT_COMMITTER_EMAIL: 'baton@localhost',
    GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
  };
}

export interface GitOptions {
  input?: string;
  /** Run without a work tree (for `init`). */
  bare?: boolean;
}

export function git(repo: ShadowRepo, args: string[], options: GitOptions = {}): Promise<string> {
  return gitExit(repo, args, [0], options).then((r) => r.out);
}

/** Like `git`, but every exit code in `accept` resolves, with its code (merge-tree exits 1 on a conflict). */
export function gitExit(
  repo: ShadowRepo,
  args: string[],
  accept: number[],
  options: GitOptions = {},
): Promise<{ code: number; out: string }> {
  const env = shadowEnv(repo);
  if (options.bare) delete env.GIT_WORK_TREE;
  return run('git', ['-c', 'core.quotepath=false', ...args], repo, env, `git ${args[0]}`, options.input, accept);
}

/**
 * Several git commands in one `sh` process (one process start instead of several), in the
 * shadow repository's environment. `args` reach the script as "$@", never interpolated.
 */
export function gitScript(repo: ShadowRepo, script: string, args: string[], what: string): Promise<string> {
  return run(
    'sh',
    ['-c', `set -e\n${script}`, 'sh', ...args],
    repo,
    { ...shadowEnv(repo), GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.quotepath', GIT_CONFIG_VALUE_0: 'false' },
    what,
  ).then((r) => r.out);
}

function run(
  command: string,
  args: string[],
  repo: ShadowRepo,
  env: NodeJS.ProcessEnv,
  what: string,
  input?: string,
  accept: number[] = [0],
): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a timeout kills the shell and every git it started.
    const child = spawn(command, args, { cwd: repo.workTree, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    // git may exit before reading its input; that is not an error of ours.
    child.stdin.on('error', () => undefined);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, repo.timeoutMs);
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      // A killed git leaves its index lock behind; nothing else uses this shadow index meanwhile.
      if (timedOut)
        void rm(`${repo.indexFile ?? join(repo.gitDir, 'index')}.lock`, { force: true }).finally(() =>
          reject(new GitTimeoutError(what, repo.timeoutMs)),
        );
      else if (code !== null && accept.includes(code)) resolve({ code, out: Buffer.concat(out).toString('utf8') });
      else reject(new GitError(args, code, Buffer.concat(err).toString('utf8')));
    });
    child.stdin.end(input ?? '');
  });
}

/** Kills the child's process group; the child alone if its group is not made yet (or is gone). */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid === undefined) throw new Error('not started');
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Splits NUL-separated git output. */
export const nulSplit = (s: string): string[] => s.split('\0').filter((x) => x.length > 0);
