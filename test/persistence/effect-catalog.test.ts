import { describe, expect, it } from 'vitest';
import type { BatonError } from '../../src/domain/errors.js';
import type { NewEffect } from '../../src/domain/effects.js';
import { typicalUnit } from '../support/units.js';
import { tableCounts, useTempStore } from '../support/store.js';

const openStore = useTempStore();

/** Commits a unit whose one effect is changed by `change`; returns the refusal's code and message, or null. */
function commitWith(change: (effect: NewEffect) => Record<string, unknown>): { code: string; message: string } | null {
  const { store } = openStore();
  const unit = typicalUnit('thr_a', 1, { effect: true });
  const before = tableCounts(store);
  try {
    store.commit({ ...unit, effects: unit.effects!.map((e) => change(e) as NewEffect) });
    return null;
  } catch (error) {
    expect(tableCounts(store)).toEqual(before);
    return { code: (error as BatonError).code, message: (error as BatonError).message };
  }
}

describe('the effect catalog, checked at commit', () => {
  it('takes an effect whose payload fits its kind', () => {
    expect(commitWith((e) => e)).toBeNull();
  });

  it('refuses a provider effect that names no provider, and writes nothing', () => {
    expect(commitWith((e) => ({ ...e, provider: null }))).toMatchObject({
      code: 'invalid_payload',
      message: expect.stringContaining('must name its provider'),
    });
  });

  it('refuses a payload its kind does not describe (an answer without its request, a turn start without its attempt)', () => {
    expect(
      commitWith((e) => ({
        ...e,
        kind: 'provider.runtime-request.respond',
        payload: { decision: 'accept', answers: null },
      })),
    ).toMatchObject({ code: 'invalid_payload', message: expect.stringContaining('requestId') });
    expect(commitWith((e) => ({ ...e, payload: { text: 'hello' } }))).toMatchObject({
      code: 'invalid_payload',
      message: expect.stringContaining('attemptId'),
    });
  });

  it('keeps what the catalog does not name (a turn start carries the run settings too)', () => {
    const { store } = openStore();
    const unit = typicalUnit('thr_a', 1, { effect: true });
    store.commit({
      ...unit,
      effects: unit.effects!.map((e) => ({
        ...e,
        payload: { ...e.payload, model: 'gpt-5.1-codex', runtimeMode: 'read_only' },
      })),
    });
    expect(store.outbox.list({ threadId: 'thr_a' })[0]!.payload).toMatchObject({
      model: 'gpt-5.1-codex',
      runtimeMode: 'read_only',
      text: 'message 1',
    });
  });
});
