import { describe, expect, it } from 'vitest';
import type { CodexProviderOptions } from '../../src/providers/codex/codex-provider.js';
import { ChildProcessChannel } from '../../src/providers/transport/line-channel.js';
import { useLiveCodex } from '../support/live-codex.js';
import { until } from '../support/poll.js';
import { within } from '../support/within.js';
import { isAlive, signal } from '../support/processes.js';

/**
 * A Codex that never finishes starting is not waited on for ever, nor left behind: one
 * still starting when Baton shuts down is killed with the rest (it has no session yet, so
 * nothing else would stop it), and one that leaves its handshake unanswered past the
 * request limit is killed, its run fails with a timeout and its session ends in error.
 * Live: the real binary, frozen with SIGSTOP as it is spawned.
 */
const spawned: number[] = [];
let tuning: Pick<CodexProviderOptions, 'requestTimeoutMs'> = {};
const { providers, open, workspace } = useLiveCodex({
  provider: () => ({
    ...tuning,
    channelFor: (_thread, _session, spawn) => {
      const channel = spawn();
      if (!(channel instanceof ChildProcessChannel) || !channel.child.pid) throw new Error('no Codex process');
      spawned.push(channel.child.pid);
      process.kill(channel.child.pid, 'SIGSTOP');
      return channel;
    },
  }),
});

describe('Codex, live: a Codex that does not finish starting', () => {
  it('a shutdown kills a Codex whose handshake is still unanswered, and the turn start ends at once', async () => {
    tuning = {};
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const runId = await h.send(threadId, 'hello');
    // The turn start is begun, not awaited: its handshake is what hangs.
    void h.worker.runOnce();
    await until(() => spawned.length === 1, 'Codex to be spawned', 10_000);
    const pid = spawned[0]!;
    try {
      await providers[0]!.stopAll('SIGTERM');
      await until(() => !isAlive(pid), `the starting Codex ${pid} to be gone`, 5_000);
      // Not when the handshake's 30 s limit would have ended it.
      await within(h.worker.idle(), 10_000, 'the turn start did not end');
      expect(h.store.projections.get('runs', runId)!.attempts[0]!.status).toBe('failed');
    } finally {
      signal(pid, 'SIGKILL');
    }
  }, 30_000);

  it('a Codex that leaves its handshake unanswered past the limit is killed; its run fails with a timeout', async () => {
    tuning = { requestTimeoutMs: 1_000 };
    spawned.length = 0;
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const runId = await h.send(threadId, 'hello');
    try {
      await h.until(() => h.ended(runId), 20_000);
      expect(h.store.projections.get('runs', runId)).toMatchObject({
        status: 'failed',
        error: { code: 'timeout', message: expect.stringContaining('initialize timed out after 1000 ms') },
      });
      expect(spawned).toHaveLength(1);
      await until(() => !isAlive(spawned[0]!), 'the unanswering Codex to be gone', 5_000);
      // Its session ends in error, not left starting.
      expect(h.store.projections.list('sessions', threadId).map((s) => s.status)).toEqual(['error']);
    } finally {
      for (const pid of spawned) signal(pid, 'SIGKILL');
    }
  }, 30_000);
});
