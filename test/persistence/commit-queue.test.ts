import { describe, expect, it } from 'vitest';
import { BatonError } from '../../src/domain/errors.js';
import { CommitQueue } from '../../src/persistence/commit-queue.js';
import type { IdentityBinding } from '../../src/domain/entities.js';
import { typicalUnit } from '../support/units.js';
import { useTempStore } from '../support/store.js';

const openStore = useTempStore();

describe('CommitQueue (group commit)', () => {
  it('commits units submitted together in one group, in submission order', async () => {
    const { store } = openStore();
    const queue = new CommitQueue(store);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => queue.submit(typicalUnit(`thr_${i % 3}`, i + 1))),
    );
    expect(results.map((r) => r.lastSequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(store.events.readAfter(0).map((e) => e.eventId)).toEqual(results.map((_, i) => `evt_thr_${i % 3}_${i + 1}`));
  });

  it('refuses an invalid unit at submit, before it joins a group', () => {
    const { store } = openStore();
    const queue = new CommitQueue(store);
    const bad = {
      ...typicalUnit('thr_a', 1),
      snapshots: [{ ...typicalUnit('thr_a', 1).snapshots![0]!, kind: 'nope' as never }],
    };
    expect(() => queue.submit(bad)).toThrow(BatonError);
    expect(queue.size).toBe(0);
  });

  it('refuses only the unit that fails inside the transaction; the rest of the group commits', async () => {
    const { store } = openStore();
    const binding: IdentityBinding = {
      provider: 'codex',
      scope: 's',
      nativeRef: 'n',
      appId: 'a1',
      entityKind: 'provider_turn',
      correlation: 'native_exact',
    };
    store.commit({ bindings: [binding] });
    const queue = new CommitQueue(store);
    const good1 = queue.submit(typicalUnit('thr_a', 1, { receipt: true }));
    const bad = queue.submit({
      ...typicalUnit('thr_a', 2, { receipt: true }),
      bindings: [{ ...binding, appId: 'a2' }],
    });
    const good2 = queue.submit(typicalUnit('thr_a', 3, { receipt: true }));
    await expect(bad).rejects.toMatchObject({ code: 'binding_conflict' });
    expect(await good1).toMatchObject({ lastSequence: 1 });
    expect(await good2).toMatchObject({ lastSequence: 2 });
    expect(store.receipts.get('cmd_thr_a_2')).toBeNull();
    expect(store.events.readAfter(0).map((e) => e.eventId)).toEqual(['evt_thr_a_1', 'evt_thr_a_3']);
  });

  it('flushes at once when the group is full', async () => {
    const { store } = openStore();
    const queue = new CommitQueue(store, 4);
    const pending = Array.from({ length: 4 }, (_, i) => queue.submit(typicalUnit('thr_a', i + 1)));
    // The fourth submit filled the group and flushed synchronously: the rows are on disk already.
    expect(store.lastSequence()).toBe(4);
    await Promise.all(pending);
  });
});
