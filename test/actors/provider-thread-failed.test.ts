import { describe, expect, it } from 'vitest';
import { useRuntime } from '../support/runtime.js';

const open = useRuntime();

describe('a provider thread that failed', () => {
  it('is replaced once: a late report about the thread already replaced changes nothing', async () => {
    const h = open();
    const threadId = await h.thread();
    const first = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
    expect(
      await h.runtime.ingest({ type: 'thread.failed', threadId, providerThreadId: first, reason: 'no rollout found' }),
    ).toMatchObject({ ok: true });
    const second = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
    expect(second).not.toBe(first);

    await h.runtime.ingest({
      type: 'thread.failed',
      threadId,
      providerThreadId: first,
      reason: 'the same failure, reported late',
    });
    const shell = h.store.projections.get('threads', threadId)!;
    expect(shell.activeProviderThreadId).toBe(second);
    expect(shell.warnings.filter((w) => w.message.includes('provider thread failed'))).toHaveLength(1);
  });

  it('with no run active, the next run is a provider_recovery attempt on the replacement', async () => {
    const h = open();
    const threadId = await h.thread();
    const first = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
    await h.runtime.ingest({ type: 'thread.failed', threadId, providerThreadId: first, reason: 'no rollout found' });
    const sent = (await h.command({ type: 'thread.message.send', threadId, text: 'go on' })) as {
      result: { runId: string };
    };
    const start = h.effect('provider.turn.start', threadId).payload as { reason: string; providerThreadId: string };
    expect(start.reason).toBe('provider_recovery');
    expect(start.providerThreadId).toBe(h.store.projections.get('threads', threadId)!.activeProviderThreadId);
    expect(h.store.projections.get('runs', sent.result.runId)!.providerThreadId).toBe(start.providerThreadId);
  });
});
