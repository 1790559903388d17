import { describe, expect, it } from 'vitest';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import { useLiveCodex } from '../support/live-codex.js';
import type { Harness } from '../support/runtime.js';

// The policy is told Codex cannot roll its conversation back: a rollback leaves it divergent.
const { model, open, workspace } = useLiveCodex({
  capabilities: (p) => ({ ...codexCapabilities, threads: { ...codexCapabilities.threads, canRollbackThread: false } }),
});

const status = (h: Harness, providerThreadId: string) =>
  (h.store.entities.get(providerThreadId)?.snapshot as { context: { status: string; nativeThreadRef: string | null } })
    .context;

describe('Codex, live: a provider without rollback', () => {
  it('is marked divergent by a rollback; the next run goes to a replacement reseeded by the portable context of the kept runs', async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const runs: string[] = [];
    for (const n of [1, 2]) {
      model.enqueue({ kind: 'text', text: `divergent answer ${n}` });
      runs.push(await h.send(threadId, `divergent-run-${n}`));
      await h.until(() => h.ended(runs.at(-1)!));
    }
    const diverged = h.run(runs[0]!).providerThreadId!;
    const oldNative = status(h, diverged).nativeThreadRef;

    expect(await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).toMatchObject({ ok: true });
    expect(h.store.outbox.list({ threadId }).filter((e) => e.kind === 'provider.thread.rollback')).toEqual([]);
    expect(status(h, diverged).status).toBe('error');
    expect(h.store.projections.get('threads', threadId)!.warnings.map((w) => w.message)).toContainEqual(
      expect.stringContaining('marked divergent'),
    );

    model.enqueue({ kind: 'text', text: 'divergent answer 3' });
    const next = await h.send(threadId, 'divergent-run-next');
    await h.until(() => h.ended(next));
    const r = h.run(next);
    expect(r).toMatchObject({ status: 'completed', ordinal: 2 });
    expect(r.providerThreadId).not.toBe(diverged);
    expect(r.attempts.map((a) => a.reason)).toEqual(['provider_recovery']);
    expect(status(h, r.providerThreadId!).nativeThreadRef).not.toBe(oldNative);
    // The same builder, the same record: the seed tells run 1 and nothing of the rolled-back run 2.
    const seed = h.store.projections.list('turn_items', threadId).find((i) => i.data.contextSeed === true)!;
    expect(seed).toMatchObject({ runId: next, rolledBack: false, data: { strategy: 'full', coveredRunOrdinals: [1] } });
    const input = JSON.stringify(model.requests.at(-1)!.body.input);
    expect(input).toContain('divergent answer 1');
    expect(input).not.toContain('divergent-run-2');
    expect(input).not.toContain('divergent answer 2');
  }, 90_000);
});
