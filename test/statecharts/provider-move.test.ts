import { describe, expect, it } from 'vitest';
import { ProviderThreadId, ThreadId } from '../../src/domain/ids.js';
import { providerMove, type SwitchState } from '../../src/machines/provider-switching.js';

/** The supervisor's choice of provider thread for the next run, with or without a switch (pure). */
const pthr = (id: string) => ProviderThreadId.parse(id);

function context(over: Partial<SwitchState>): SwitchState {
  return {
    provider: 'codex',
    providerThreadId: pthr('pthr_codex'),
    reseedNext: false,
    parkedProviderThreads: [],
    nextProviderThreadId: null,
    threadId: ThreadId.parse('thr_1'),
    countedRunIds: [],
    ...over,
  };
}

describe('providerMove', () => {
  it('no switch: the current provider thread, nothing handed over (also for a supervisor stored before switches)', () => {
    expect(providerMove(context({}), 3)).toEqual({
      providerThreadId: 'pthr_codex',
      handoff: null,
      transferId: null,
      create: null,
      assign: {},
      outputs: [],
    });
    const stored = context({ parkedProviderThreads: undefined, nextProviderThreadId: undefined });
    expect(providerMove(stored, 3).providerThreadId).toBe('pthr_codex');
  });

  it('to a provider with no thread yet: a new one, told every earlier run; the outgoing one is parked with all of them', () => {
    const move = providerMove(
      context({ provider: 'claude', providerThreadProvider: 'codex', nextProviderThreadId: pthr('pthr_new') }),
      4,
    );
    expect(move).toMatchObject({ providerThreadId: 'pthr_new', handoff: { sinceOrdinal: 0 }, create: 'pthr_new' });
    expect(move.assign.parkedProviderThreads).toEqual([
      { provider: 'codex', providerThreadId: 'pthr_codex', toldThrough: 3 },
    ]);
  });

  it('back to a parked provider thread: taken up again, told only the runs after the last one it holds', () => {
    const move = providerMove(
      context({
        provider: 'codex',
        providerThreadProvider: 'claude',
        providerThreadId: pthr('pthr_claude'),
        parkedProviderThreads: [{ provider: 'codex', providerThreadId: pthr('pthr_codex'), toldThrough: 2 }],
        nextProviderThreadId: pthr('pthr_unused'),
      }),
      5,
    );
    expect(move).toMatchObject({ providerThreadId: 'pthr_codex', handoff: { sinceOrdinal: 2 }, create: null });
    expect(move.assign.parkedProviderThreads).toEqual([
      { provider: 'claude', providerThreadId: 'pthr_claude', toldThrough: 4 },
    ]);
  });

  it('a clean switch leaves the parked thread and starts a new one told everything', () => {
    const move = providerMove(
      context({
        provider: 'codex',
        providerThreadProvider: 'claude',
        providerThreadId: pthr('pthr_claude'),
        parkedProviderThreads: [{ provider: 'codex', providerThreadId: pthr('pthr_codex'), toldThrough: 2 }],
        nextProviderThreadId: pthr('pthr_fresh'),
        cleanSwitch: true,
      }),
      5,
    );
    expect(move).toMatchObject({ providerThreadId: 'pthr_fresh', handoff: { sinceOrdinal: 0 }, create: 'pthr_fresh' });
  });

  it('a provider thread waiting to be reseeded is parked as holding nothing; a first run needs no handoff', () => {
    const move = providerMove(
      context({
        provider: 'claude',
        providerThreadProvider: 'codex',
        reseedNext: true,
        nextProviderThreadId: pthr('pthr_new'),
      }),
      3,
    );
    expect(move.assign.parkedProviderThreads?.[0]?.toldThrough).toBe(0);
    const first = providerMove(
      context({ provider: 'claude', providerThreadProvider: 'codex', nextProviderThreadId: pthr('pthr_new') }),
      1,
    );
    expect(first.handoff).toBeNull();
  });
});
