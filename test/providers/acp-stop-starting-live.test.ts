import { describe, expect, it } from 'vitest';
import { ChildProcessChannel, type LineChannel } from '../../src/providers/transport/line-channel.js';
import { acpAgentProcesses, useLiveAcp } from '../support/live-acp.js';
import { until } from '../support/poll.js';
import { signal } from '../support/processes.js';

/**
 * An ACP agent that never finishes starting is not left behind: one still starting when Baton
 * shuts down is killed with the rest (it has no connection yet, so nothing else would stop
 * it), and one that does not answer `initialize` in time is killed and its run fails. Live:
 * the real claude-agent-acp, frozen with SIGSTOP as it is spawned.
 */
const acp = useLiveAcp();

/** A channel hook that freezes each agent as it is spawned; `pids` lists them. */
function frozenAgents(): {
  pids: number[];
  channelFor: (t: string, s: string, spawn: () => LineChannel) => LineChannel;
} {
  const pids: number[] = [];
  return {
    pids,
    channelFor: (_thread, _session, spawn) => {
      const channel = spawn();
      if (!(channel instanceof ChildProcessChannel) || !channel.child.pid) throw new Error('no agent process');
      pids.push(channel.child.pid);
      process.kill(channel.child.pid, 'SIGSTOP');
      return channel;
    },
  };
}

describe('ACP, live: stopped while it starts', () => {
  it('a shutdown kills an agent whose initialize is still unanswered, and its turn start ends', async () => {
    const frozen = frozenAgents();
    const spawned = frozen.pids;
    const { h, cwd, provider } = await acp.setup({ provider: { channelFor: frozen.channelFor } });
    const threadId = await h.thread({ cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
    const runId = await h.send(threadId, 'hello');
    // The turn start is begun, not awaited: the agent's initialize is what hangs.
    void h.worker.runOnce();
    await until(() => spawned.length === 1, 'the agent to be spawned', 10_000);
    try {
      await provider.stopAll('SIGTERM');
      await until(() => acpAgentProcesses().length === 0, 'the starting agent to be gone', 5_000);
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the turn start still waits on initialize')), 10_000);
      });
      await Promise.race([h.worker.idle(), hung]).finally(() => clearTimeout(timer));
      expect(h.store.projections.get('runs', runId)!.attempts[0]!.status).toBe('failed');
    } finally {
      for (const pid of spawned) signal(pid, 'SIGKILL');
    }
  }, 30_000);

  it('an agent that does not answer initialize in time is killed, and its run fails saying so', async () => {
    const frozen = frozenAgents();
    const { h, cwd } = await acp.setup({ provider: { channelFor: frozen.channelFor, startTimeoutMs: 1_000 } });
    try {
      const threadId = await h.thread({ cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
      const runId = await h.send(threadId, 'hello');
      await h.until(() => h.ended(runId), 20_000);
      expect(h.store.projections.get('runs', runId)).toMatchObject({
        status: 'failed',
        error: {
          code: 'provider_error',
          message: expect.stringMatching(/did not answer initialize within 1000 ms; it was killed/),
        },
      });
      expect(frozen.pids).toHaveLength(1);
      await until(() => acpAgentProcesses().length === 0, 'the agent to be gone', 5_000);
    } finally {
      for (const pid of frozen.pids) signal(pid, 'SIGKILL');
    }
  }, 30_000);
});
