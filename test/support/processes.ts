import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

// Real processes, seen and signalled: for tests that freeze (SIGSTOP) or kill what they started.

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends a signal to a process that may be gone already. */
export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Gone.
  }
}

/** A process's state letter from /proc (R, S, T, Z, ...), or null when it is gone. */
function stateOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] ?? null;
  } catch {
    return null;
  }
}

/** Live (not zombie) processes running one of `comms` whose working directory is `cwd` (read from /proc). */
export function processesIn(comms: readonly string[], cwd: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (!comms.includes(stat.slice(stat.indexOf('(') + 1, close)) || stat[close + 2] === 'Z') continue;
      if (readlinkSync(`/proc/${entry}/cwd`) !== cwd) continue;
      found.push(Number(entry));
    } catch {
      // It ended while we looked.
    }
  }
  return found;
}

/**
 * Freezes (SIGSTOP) the first processes `find` returns, looking every `everyMs`, and
 * resolves with those that really stopped (one that was already exiting cannot be, and the
 * search goes on). The caller must SIGCONT or SIGKILL them. Rejects after `timeoutMs`.
 */
export function freezeFirst(find: () => number[], what: string, timeoutMs = 20_000, everyMs = 2): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const look = setInterval(() => {
      const pids = find();
      pids.forEach((pid) => signal(pid, 'SIGSTOP'));
      // The stop is delivered at once to a process that can take it; one that is exiting never shows T.
      const stopped = pids.filter((pid) => {
        for (let i = 0; i < 1_000; i++) {
          const state = stateOf(pid);
          if (state === 'T' || state === 't') return true;
          if (state === null || state === 'Z' || state === 'X') return false;
        }
        return false;
      });
      pids.filter((pid) => !stopped.includes(pid)).forEach((pid) => signal(pid, 'SIGCONT'));
      if (stopped.length) {
        clearInterval(look);
        resolve(stopped);
      } else if (Date.now() > deadline) {
        clearInterval(look);
        reject(new Error(`nothing to freeze appeared in ${timeoutMs} ms: ${what}`));
      }
    }, everyMs);
  });
}
