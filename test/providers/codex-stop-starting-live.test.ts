import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CodexSession, spawnCodex } from '../../src/providers/codex/codex-session.js';
import { ensureCodexHome } from '../../src/providers/codex/codex-home.js';
import { ChildProcessChannel } from '../../src/providers/transport/line-channel.js';
import { useLiveCodex } from '../support/live-codex.js';
import { isAlive, signal } from '../support/processes.js';
import { until } from '../support/poll.js';

/**
 * A Codex that never finishes starting is not left behind: one still starting when Baton
 * shuts down is killed with the rest (it has no session yet, so nothing else would stop it),
 * and one that fails its handshake is killed before the failure is reported. Live: the real
 * binary, frozen with SIGSTOP as it is spawned.
 */
const spawned: number[] = [];
const { model, providers, open, workspace, dataDir } = useLiveCodex({
  provider: () => ({
    channelFor: (_thread, _session, spawn) => {
      const channel = spawn();
      if (!(channel instanceof ChildProcessChannel) || !channel.child.pid) throw new Error('no Codex process');
      spawned.push(channel.child.pid);
      process.kill(channel.child.pid, 'SIGSTOP');
      return channel;
    },
  }),
});

describe('Codex, live: stopped while it starts', () => {
  it('a shutdown kills a Codex whose handshake is still unanswered', async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const ack = (await h.command({ type: 'thread.message.send', threadId, text: 'hello' })) as {
      result: { runId: string };
    };
    // The turn start is begun, not awaited: its handshake is what hangs.
    void h.worker.runOnce();
    await until(() => spawned.length === 1, 'Codex to be spawned', 10_000);
    const pid = spawned[0]!;
    try {
      await providers[0]!.stopAll('SIGTERM');
      await until(() => !isAlive(pid), `the starting Codex ${pid} to be gone`, 5_000);
      // The turn start ends with it, not when the handshake's 30 s timeout would have.
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the turn start still waits on the handshake')), 10_000);
      });
      await Promise.race([h.worker.idle(), hung]).finally(() => clearTimeout(timer));
      expect(h.store.projections.get('runs', ack.result.runId)!.attempts[0]!.status).toBe('failed');
    } finally {
      signal(pid, 'SIGKILL');
    }
  }, 30_000);

  it('a Codex whose handshake times out is killed, not left running', async () => {
    const home = ensureCodexHome(join(dataDir, 'codex', 'home'), { baseUrl: model.baseUrl, model: 'gpt-5.1-codex' });
    const channel = spawnCodex(workspace(), home);
    const pid = channel.child.pid!;
    process.kill(pid, 'SIGSTOP');
    try {
      await expect(
        CodexSession.start({ codexHome: home, cwd: workspace(), channel, requestTimeoutMs: 500 }),
      ).rejects.toThrow(/timed out|timeout/i);
      await until(() => !isAlive(pid), `the unanswering Codex ${pid} to be gone`, 5_000);
    } finally {
      signal(pid, 'SIGKILL');
    }
  });
});
