import type { ProviderCapabilities } from '../../../../src/domain/capabilities.js';
import { check, type ProviderScenario } from '../scenario.js';
import { send, status, assistantTexts } from '../baton.js';

/** The declared capabilities with native forks off: the portable fork's scenario runs on every provider. */
const withoutNativeFork = (declared: ProviderCapabilities): ProviderCapabilities => ({
  ...declared,
  threads: { ...declared.threads, canForkThread: false, canForkFromTurn: false },
});

/** Forks that cannot be native: resolved from Baton's own record of the source. */
export const forkScenarios: ProviderScenario[] = [
  {
    name: 'fork_portable',
    needs: ['context.acceptsSyntheticUserContext'],
    adjustCapabilities: withoutNativeFork,
    model: [
      { kind: 'text', text: 'Noted: 42.' },
      { kind: 'text', text: 'Noted: 7.' },
      { kind: 'text', text: 'The number was 42.' },
    ],
    async drive({ h, cwd }) {
      const source = await h.thread({ threadId: 'thr_psource', cwd });
      const one = await send(h, source, 'remember the number 42');
      await h.until(() => status(h, one) === 'completed');
      const two = await send(h, source, 'now remember the number 7');
      await h.until(() => status(h, two) === 'completed');
      const forked = await h.command({
        type: 'thread.fork',
        sourceThreadId: source,
        source: { type: 'run', threadId: source, runId: one },
        threadId: 'thr_pfork',
      });
      check(forked.ok, `fork refused: ${JSON.stringify(forked)}`);
      const forkRun = await send(h, 'thr_pfork', 'what was the number?');
      await h.until(() => status(h, forkRun) === 'completed');
      const resolved = h.store.events.readThreadAfter('thr_pfork', 0).find((e) => e.type === 'thread.fork-resolved');
      check(
        (resolved?.payload as { strategy?: string } | undefined)?.strategy === 'portable_context',
        `resolved portably (lower fidelity), got ${JSON.stringify(resolved?.payload)}`,
      );
      // What the fork's provider was told, auditable: the source up to the fork point, nothing after it.
      const seed = h.store.projections.list('turn_items', 'thr_pfork').find((i) => i.data.contextSeed === true);
      check(
        seed?.runId === forkRun && seed.data.fromThreadId === source,
        `a seed of the fork's run, from the source, got ${JSON.stringify(seed)}`,
      );
      check(
        seed.text.includes('remember the number 42') && seed.text.includes('Noted: 42.'),
        `the seed tells the source's run 1, got ${seed.text}`,
      );
      check(
        !seed.text.includes('number 7') && !seed.text.includes('Noted: 7.'),
        `the seed tells nothing after the fork point, got ${seed.text}`,
      );
      check(JSON.stringify(seed.data.coveredRunOrdinals) === '[1]', 'it covers the source run 1');
      check(assistantTexts(h, 'thr_pfork').at(-1) === 'The number was 42.', 'the fork answered');
      check(assistantTexts(h, source).length === 2, 'the source thread is untouched');
      // The fork runs on a provider thread of its own, not the source's.
      const forkThread = h.store.projections.get('runs', forkRun)!.providerThreadId;
      check(
        forkThread !== null && forkThread !== h.store.projections.get('runs', one)!.providerThreadId,
        'the fork has its own provider thread',
      );
    },
  },
];
