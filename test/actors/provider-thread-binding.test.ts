import { describe, expect, it } from 'vitest';
import { ThreadId } from '../../src/domain/ids.js';
import { useRuntime } from '../support/runtime.js';

const open = useRuntime();

describe("a provider thread's native ref", () => {
  it('is bound as the provider thread is loaded, and the host port reads the binding', async () => {
    const h = open();
    const threadId = await h.thread();
    const providerThreadId = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
    const host = h.runtime.providerHost('codex');
    expect(host.nativeThreadRef(providerThreadId)).toBeNull();

    expect(
      await h.runtime.ingest({
        type: 'thread.loaded',
        threadId,
        providerThreadId,
        nativeThreadRef: 'codex-thread-1',
        resumeCursor: 'codex-thread-1',
      }),
    ).toMatchObject({ ok: true });
    expect(h.store.bindings.forApp(providerThreadId)).toEqual([
      {
        provider: 'codex',
        scope: `app_thread:${threadId}`,
        nativeRef: 'codex-thread-1',
        appId: providerThreadId,
        entityKind: 'provider_thread',
        correlation: 'native_exact',
      },
    ]);
    expect(host.nativeThreadRef(providerThreadId)).toBe('codex-thread-1');

    // A resume that lands on another native thread: the newest binding wins.
    await h.runtime.ingest({
      type: 'thread.loaded',
      threadId,
      providerThreadId,
      nativeThreadRef: 'codex-thread-2',
      resumeCursor: 'codex-thread-2',
    });
    expect(host.nativeThreadRef(providerThreadId)).toBe('codex-thread-2');
  });

  it('of a provider thread loaded before bindings were kept is still read, from its stored row', async () => {
    const h = open();
    const threadId = await h.thread();
    const providerThreadId = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
    // What an older Baton stored: the load on the provider thread's row, and no binding.
    const loaded = await h.runtime.step(ThreadId.parse(threadId), (ctx) => {
      ctx.deliver(
        { kind: 'provider_thread', id: providerThreadId },
        { type: 'LOADED', nativeThreadRef: 'codex-thread-old', resumeCursor: null },
      );
      return {};
    });
    expect(loaded.ok).toBe(true);
    expect(h.store.bindings.forApp(providerThreadId)).toEqual([]);
    expect(h.runtime.providerHost('codex').nativeThreadRef(providerThreadId)).toBe('codex-thread-old');
    expect(h.runtime.providerHost('codex').nativeThreadRef('pthr_unknown')).toBeNull();
  });
});
