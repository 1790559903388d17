import { describe, expect, it } from 'vitest';
import { BatonError } from '../../src/domain/errors.js';
import type { EffectId, TimerId } from '../../src/domain/ids.js';
import { typicalUnit } from '../support/units.js';
import { tableCounts, useTempStore } from '../support/store.js';

const openStore = useTempStore();

describe('effect outbox', () => {
  it('claims under a lease, re-claims after expiry, and refuses the stale owner', () => {
    const { store, clock } = openStore();
    store.commit(typicalUnit('thr_a', 1, { effect: true }));
    const effectId = 'eff_thr_a_1' as EffectId;

    const [claimed] = store.outbox.claim('worker-1', clock.nowMs(), 5_000);
    expect(claimed).toMatchObject({
      id: effectId,
      status: 'running',
      attempts: 1,
      leaseOwner: 'worker-1',
      leaseExpiresAt: clock.nowMs() + 5_000,
    });
    expect(store.outbox.claim('worker-2', clock.nowMs(), 5_000)).toEqual([]);

    clock.advance(4_999);
    expect(store.outbox.claim('worker-2', clock.nowMs(), 5_000)).toEqual([]);
    clock.advance(1);
    const [reclaimed] = store.outbox.claim('worker-2', clock.nowMs(), 5_000);
    expect(reclaimed).toMatchObject({ id: effectId, attempts: 2, leaseOwner: 'worker-2' });

    // worker-1 wakes up late: its completion is refused and its events are not written.
    const before = tableCounts(store);
    const late = {
      ...typicalUnit('thr_a', 2),
      effectUpdates: [{ effectId, status: 'completed' as const, leaseOwner: 'worker-1' }],
    };
    try {
      store.commit(late);
      expect.unreachable();
    } catch (error) {
      expect((error as BatonError).code).toBe('lease_lost');
    }
    expect(tableCounts(store)).toEqual(before);

    // worker-2 completes in the same transaction as the provider output it ingested.
    store.commit({
      ...typicalUnit('thr_a', 2),
      effectUpdates: [{ effectId, status: 'completed', leaseOwner: 'worker-2' }],
    });
    expect(store.outbox.get(effectId)).toMatchObject({ status: 'completed', leaseOwner: null, attempts: 2 });
    clock.advance(60_000);
    expect(store.outbox.claim('worker-3', clock.nowMs(), 5_000)).toEqual([]);
  });

  it('retries a failed attempt no earlier than its availableAt and keeps the last error', () => {
    const { store, clock } = openStore();
    store.commit(typicalUnit('thr_a', 1, { effect: true }));
    const effectId = 'eff_thr_a_1' as EffectId;
    store.outbox.claim('w', clock.nowMs(), 1_000);
    store.commit({
      effectUpdates: [
        { effectId, status: 'pending', error: 'provider busy', leaseOwner: 'w', availableAt: clock.nowMs() + 10_000 },
      ],
    });
    expect(store.outbox.claim('w', clock.nowMs() + 9_999, 1_000)).toEqual([]);
    const [again] = store.outbox.claim('w', clock.nowMs() + 10_000, 1_000);
    expect(again).toMatchObject({ attempts: 2, lastError: 'provider busy' });
    store.commit({ effectUpdates: [{ effectId, status: 'failed', error: 'gave up', leaseOwner: 'w' }] });
    expect(store.outbox.list({ status: 'failed' }).map((e) => [e.id, e.lastError])).toEqual([[effectId, 'gave up']]);
  });

  it('claims in creation order and honours the limit', () => {
    const { store, clock } = openStore();
    for (let i = 1; i <= 5; i++) {
      store.commit(typicalUnit('thr_a', i, { effect: true }));
      clock.advance(1);
    }
    expect(store.outbox.claim('w', clock.nowMs(), 1_000, 3).map((e) => e.id)).toEqual([
      'eff_thr_a_1',
      'eff_thr_a_2',
      'eff_thr_a_3',
    ]);
    expect(store.outbox.claim('w', clock.nowMs(), 1_000, 3).map((e) => e.id)).toEqual(['eff_thr_a_4', 'eff_thr_a_5']);
  });

  it('updating an unknown effect is a typed not_found', () => {
    const { store } = openStore();
    expect(() => store.commit({ effectUpdates: [{ effectId: 'eff_nope' as EffectId, status: 'completed' }] })).toThrow(
      BatonError,
    );
  });
});

describe('durable timers', () => {
  it('are due by time, survive a reopen, and stop being due once fired or cancelled', () => {
    const { store, clock, reopen } = openStore();
    const t0 = clock.nowMs();
    store.commit({
      timers: [
        {
          op: 'schedule',
          timerId: 'tmr_1' as TimerId,
          threadId: 'thr_a',
          entityId: 'req_1',
          dueAt: t0 + 1_000,
          event: { type: 'request.expire' },
        },
        {
          op: 'schedule',
          timerId: 'tmr_2' as TimerId,
          threadId: 'thr_a',
          entityId: null,
          dueAt: t0 + 2_000,
          event: { type: 'idle.reap' },
        },
      ],
    });
    expect(store.timers.dueAt(t0 + 999)).toEqual([]);
    const reopened = reopen();
    expect(reopened.timers.dueAt(t0 + 2_000).map((t) => t.timerId)).toEqual(['tmr_1', 'tmr_2']);
    reopened.commit({
      timers: [
        { op: 'fired', timerId: 'tmr_1' as TimerId },
        { op: 'cancel', timerId: 'tmr_2' as TimerId },
      ],
    });
    expect(reopened.timers.dueAt(t0 + 10_000)).toEqual([]);
  });
});
