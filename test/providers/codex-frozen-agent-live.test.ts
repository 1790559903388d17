import { describe, expect, it } from 'vitest';
import { ChildProcessChannel } from '../../src/providers/transport/line-channel.js';
import { useLiveCodex } from '../support/live-codex.js';
import { until } from '../support/poll.js';
import { within } from '../support/within.js';
import { isAlive, signal } from '../support/processes.js';

/**
 * A Codex that does not end on SIGTERM (frozen here with SIGSTOP as its turn starts) is not
 * left behind by a shutdown: it is killed once the grace period has passed, and the shutdown
 * resolves once it is gone.
 */
const frozen: number[] = [];
const { providers, open, workspace } = useLiveCodex({
  provider: () => ({
    channelFor: (_thread, _session, spawn) => {
      const channel = spawn();
      if (!(channel instanceof ChildProcessChannel) || !channel.child.pid) throw new Error('no Codex process');
      const pid = channel.child.pid;
      const send = channel.send.bind(channel);
      channel.send = (line) => {
        if (line.includes('"method":"turn/start"')) {
          process.kill(pid, 'SIGSTOP');
          frozen.push(pid);
        }
        return send(line);
      };
      return channel;
    },
  }),
});

describe('Codex, live: a Codex that does not end on SIGTERM', () => {
  it('a shutdown kills it after the grace period and resolves once it is gone', async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    await h.send(threadId, 'hello');
    // The turn start is begun, not awaited: Codex, frozen, never answers it.
    void h.worker.runOnce();
    await until(() => frozen.length === 1, 'Codex to be frozen as its turn starts', 20_000);
    const pid = frozen[0]!;
    try {
      await within(providers[0]!.stopAll('SIGTERM'), 15_000, 'the shutdown did not end');
      expect(isAlive(pid)).toBe(false);
      // The turn start it never answered ends with it.
      await within(h.worker.idle(), 10_000, 'the turn start did not end');
    } finally {
      signal(pid, 'SIGKILL');
    }
  }, 40_000);
});
