import { describe, expect, it } from 'vitest';
import { ChildProcessChannel, type LineChannel } from '../../src/providers/transport/line-channel.js';
import { acpAgentProcesses, useLiveAcp } from '../support/live-acp.js';
import { until } from '../support/poll.js';
import { within } from '../support/within.js';
import { signal } from '../support/processes.js';

/**
 * An ACP agent that goes silent is not waited on for ever, nor left behind: one still
 * starting when Baton shuts down is killed with the rest (it has no connection yet, so
 * nothing else would stop it), and one that leaves a request of Baton's unanswered past the
 * limit (`initialize`, `session/new`) is killed and its run fails saying so. Live: the real
 * claude-agent-acp, frozen with SIGSTOP as it is spawned or as Baton sends it the request.
 */
const acp = useLiveAcp();

/** A channel hook that freezes each agent as it is spawned, or as `method` is sent to it; `pids` lists them. */
function frozenAgents(method?: string): {
  pids: number[];
  channelFor: (t: string, s: string, spawn: () => LineChannel) => LineChannel;
} {
  const pids: number[] = [];
  return {
    pids,
    channelFor: (_thread, _session, spawn) => {
      const channel = spawn();
      if (!(channel instanceof ChildProcessChannel) || !channel.child.pid) throw new Error('no agent process');
      const pid = channel.child.pid;
      pids.push(pid);
      if (!method) process.kill(pid, 'SIGSTOP');
      else {
        const send = channel.send.bind(channel);
        channel.send = (line) => {
          if (line.includes(`"method":"${method}"`)) process.kill(pid, 'SIGSTOP');
          return send(line);
        };
      }
      return channel;
    },
  };
}

describe('ACP, live: an agent gone silent', () => {
  it('a shutdown kills an agent whose initialize is still unanswered, and its turn start ends', async () => {
    const frozen = frozenAgents();
    const { h, cwd, provider } = await acp.setup({ provider: { channelFor: frozen.channelFor } });
    try {
      const threadId = await h.thread({ cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
      const runId = await h.send(threadId, 'hello');
      // The turn start is begun, not awaited: the agent's initialize is what hangs.
      void h.worker.runOnce();
      await until(() => frozen.pids.length === 1, 'the agent to be spawned', 10_000);
      await provider.stopAll('SIGTERM');
      await until(() => acpAgentProcesses().length === 0, 'the starting agent to be gone', 5_000);
      // Not when the 30 s request limit would have ended it: at once.
      await within(h.worker.idle(), 10_000, 'the turn start did not end');
      expect(h.store.projections.get('runs', runId)!.attempts[0]!.status).toBe('failed');
    } finally {
      for (const pid of frozen.pids) signal(pid, 'SIGKILL');
    }
  }, 30_000);

  it.each(['initialize', 'session/new'])(
    'an agent that leaves %s unanswered past the limit is killed, and its run fails saying so',
    async (method) => {
      const frozen = frozenAgents(method === 'initialize' ? undefined : method);
      const { h, cwd } = await acp.setup({ provider: { channelFor: frozen.channelFor, requestTimeoutMs: 1_000 } });
      try {
        const threadId = await h.thread({ cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
        const runId = await h.send(threadId, 'hello');
        await h.until(() => h.ended(runId), 20_000);
        expect(h.store.projections.get('runs', runId)).toMatchObject({
          status: 'failed',
          error: {
            code: 'timeout',
            message: expect.stringContaining(`did not answer ${method} within 1000 ms; it was killed`),
          },
        });
        expect(frozen.pids).toHaveLength(1);
        await until(() => acpAgentProcesses().length === 0, 'the agent to be gone', 5_000);
        // Its session ends too (in error, or stopped when Baton released it after initialize), never left starting.
        expect(h.store.projections.list('sessions', threadId).map((s) => s.status)).toEqual([
          method === 'initialize' ? 'error' : 'stopped',
        ]);
      } finally {
        for (const pid of frozen.pids) signal(pid, 'SIGKILL');
      }
    },
    30_000,
  );

  it('a shutdown does not wait for ever on an agent that does not end on SIGTERM: it is killed after the grace period', async () => {
    const frozen = frozenAgents('session/prompt');
    const { h, cwd, provider } = await acp.setup({ provider: { channelFor: frozen.channelFor } });
    try {
      const threadId = await h.thread({ cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
      await h.send(threadId, 'hello');
      // The prompt is sent and the agent frozen with it; the turn start itself has ended.
      await within(h.worker.runOnce(), 20_000, 'the turn start did not end');
      expect(frozen.pids).toHaveLength(1);
      await within(provider.stopAll('SIGTERM'), 15_000, 'the shutdown waited on the frozen agent');
      expect(acpAgentProcesses()).toEqual([]);
    } finally {
      for (const pid of frozen.pids) signal(pid, 'SIGKILL');
    }
  }, 40_000);
});
