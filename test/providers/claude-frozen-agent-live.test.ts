import { describe, expect, it } from 'vitest';
import { useLiveClaude } from '../support/live-claude.js';
import { until } from '../support/poll.js';
import { within } from '../support/within.js';
import { isAlive, signal } from '../support/processes.js';

/**
 * A Claude agent that does not act on SIGTERM (frozen here with SIGSTOP as it is spawned)
 * does not hold Baton's shutdown for ever: it is killed once the grace period has passed.
 */
const spawned: number[] = [];
const claude = useLiveClaude();

describe('Claude, live: an agent that does not end on SIGTERM', () => {
  it('a shutdown kills it after the grace period and ends', async () => {
    const { h, cwd } = await claude.setup({
      provider: {
        processFor: (_scope, spawn) => {
          const child = spawn();
          if (!child.pid) throw new Error('no Claude process');
          spawned.push(child.pid);
          process.kill(child.pid, 'SIGSTOP');
          return child;
        },
      },
    });
    const threadId = await h.thread({ cwd });
    await h.send(threadId, 'hello');
    void h.worker.runOnce();
    await until(() => spawned.length === 1, 'Claude to be spawned', 10_000);
    const pid = spawned[0]!;
    try {
      await within(claude.providers[0]!.stopAll('SIGTERM'), 15_000, 'the shutdown did not end');
      expect(isAlive(pid)).toBe(false);
      // The turn start it never answered ends with it.
      await within(h.worker.idle(), 10_000, 'the turn start did not end');
    } finally {
      signal(pid, 'SIGKILL');
    }
  }, 40_000);
});
