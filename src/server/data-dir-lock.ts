import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatonError } from '../domain/errors.js';

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/** Lock files this process holds: a lock naming our own pid that is not in here was left by an earlier process that had the same pid (a container restarts with the same pid). */
const heldHere = new Set<string>();

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const holderOf = (path: string): number | null => {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
};

/**
 * One Baton per data dir: two would both claim the outbox's effects. The lock is
 * `baton.lock` holding the owner's pid, made whole in one step (a full temporary file
 * hard-linked to the lock's name, which fails if the name exists). A lock whose pid is no
 * longer alive (a Baton that was killed) is taken over, as is one naming this process's pid
 * that this process does not hold; a live one is a typed `conflict` naming its pid.
 * `release()` removes it, only if it is still ours.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, 'baton.lock');
  const temp = join(dataDir, `.baton.lock.${process.pid}.tmp`);
  const mine = `${process.pid}\n`;
  writeFileSync(temp, mine, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(temp, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw error;
      }
      const holder = heldHere.has(path) ? process.pid : holderOf(path);
      if (holder !== null && (holder === process.pid ? heldHere.has(path) : alive(holder))) {
        throw new BatonError(
          'conflict',
          `the data dir ${dataDir} is in use by another Baton (pid ${holder}); stop it first, or remove ${path} if that process is not Baton`,
          { pid: holder, lock: path },
        );
      }
      // The holder is gone (or the file is unreadable): the lock is stale.
      rmSync(path, { force: true });
    }
  } finally {
    rmSync(temp, { force: true });
  }
  heldHere.add(path);
  let held = true;
  return {
    path,
    release() {
      if (!held) return;
      held = false;
      heldHere.delete(path);
      if (holderOf(path) === process.pid) rmSync(path, { force: true });
    },
  };
}
