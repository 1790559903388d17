import { describe, expect, it } from 'vitest';
import { useRuntime } from '../support/runtime.js';

const open = useRuntime();

describe('a message sent while the active run is finalizing', () => {
  it.each(['auto', 'steer_active'])(
    'with %s it becomes the next run instead of a steer the ending run would drop',
    async (dispatchMode) => {
      const h = open();
      const threadId = await h.thread();
      const t = await h.running(threadId, 'build it');
      // The root turn ended; the run's barrier waits for its checkpoint effect, not yet run.
      await h.feed({
        type: 'turn.completed',
        threadId,
        runId: t.runId,
        attemptId: t.attemptId,
        nodeId: t.rootNodeId,
        status: 'completed',
        error: null,
      });
      expect(h.store.projections.get('threads', threadId)!.activeRunId).toBe(t.runId);

      const next = (await h.command({ type: 'thread.message.send', threadId, text: 'and test it', dispatchMode })) as {
        ok: boolean;
        result: { runId: string; dispatched: string };
      };
      expect(next).toMatchObject({ ok: true, result: { dispatched: 'queued' } });
      expect(next.result.runId).not.toBe(t.runId);
      expect(
        h.store.outbox
          .list({ threadId })
          .filter((e) => e.kind === 'provider.turn.steer' || e.kind === 'provider.turn.interrupt'),
      ).toEqual([]);

      await h.until(() => h.store.projections.get('runs', t.runId)!.status === 'completed');
      await h.until(() => h.store.projections.get('runs', next.result.runId)!.status === 'starting');
      expect(h.effect('provider.turn.start', threadId).payload).toMatchObject({ text: 'and test it' });
    },
  );
});
