import { assistantTexts } from '../baton.js';
import {
  checkTransfersConsumed,
  completed,
  eventsOf,
  nativeRefsOf,
  providerThreadOf,
  rolledBack,
  seedsOf,
  transfersOf,
} from '../cross-baton.js';
import { onProvider, type CrossScenario } from '../cross-scenario.js';
import { check } from '../scenario.js';

const json = JSON.stringify;

/** Provider switches: one thread moves between providers from its next run on. */
export const crossSwitchScenarios: CrossScenario[] = [
  {
    // Claude's first request carries Codex's turns; Codex, taken up again, is told only what Claude said.
    name: 'provider_switch_return',
    models: {
      codex: [
        { kind: 'text', text: 'Codex one.' },
        { kind: 'text', text: 'Codex two.' },
        { kind: 'text', text: 'Codex four.' },
      ],
      claude: [{ kind: 'text', text: 'Claude three.' }],
    },
    async drive({ h, cwd, model }) {
      const t = await h.thread({ threadId: 'thr_switch', cwd, ...onProvider('codex') });
      const one = await completed(h, t, 'first on codex');
      const two = await completed(h, t, 'second on codex');
      const three = await completed(h, t, 'third, on claude', { provider: 'claude' });
      const four = await completed(h, t, 'fourth, back on codex', { provider: 'codex' });
      check(
        json(assistantTexts(h, t)) === json(['Codex one.', 'Codex two.', 'Claude three.', 'Codex four.']),
        `each provider answered its run, got ${json(assistantTexts(h, t))}`,
      );
      const seeds = seedsOf(h, t);
      check(
        json(seeds.map((s) => [s.runId, s.strategy, s.coveredRunOrdinals])) ===
          json([
            [three, 'full', [1, 2]],
            [four, 'delta', [3]],
          ]),
        `Claude told runs 1-2 in full, Codex the delta of run 3, got ${json(seeds.map((s) => [s.strategy, s.coveredRunOrdinals]))}`,
      );
      const [toClaude, toCodex] = seeds;
      check(
        toClaude!.text.includes('first on codex') && toClaude!.text.includes('Codex two.'),
        `Claude's handoff tells the Codex runs: ${toClaude!.text}`,
      );
      check(
        toCodex!.text.includes('Claude three.') && !toCodex!.text.includes('first on codex'),
        `Codex's handoff tells only Claude's run: ${toCodex!.text}`,
      );
      checkTransfersConsumed(h, t, [
        ['provider_handoff', 'codex', 'claude', three],
        ['provider_handoff', 'claude', 'codex', four],
      ]);
      // Codex's own provider thread is taken up again, bound to the same native thread throughout.
      const codexThread = providerThreadOf(h, one);
      check(
        codexThread && providerThreadOf(h, two) === codexThread && providerThreadOf(h, four) === codexThread,
        `runs 1, 2 and 4 on one Codex provider thread: ${json([one, two, four].map((r) => providerThreadOf(h, r)))}`,
      );
      check(providerThreadOf(h, three) !== codexThread, "Claude's run on a provider thread of its own");
      const refs = nativeRefsOf(h, t, codexThread);
      check(refs.length === 1, `one native Codex thread, got ${json(refs)}`);

      const claude = model('claude');
      const codex = model('codex');
      if (!claude || !codex) return;
      // Live: what each model was actually asked.
      const told = claude.userTexts(-1).join('\n');
      for (const said of ['first on codex', 'Codex two.', 'third, on claude'])
        check(told.includes(said), `Claude's first request carries "${said}": ${told}`);
      const items = codex.userTexts(-1);
      const last = items.at(-1) ?? '';
      check(
        last.includes('Claude three.') && last.includes('fourth, back on codex') && !last.includes('first on codex'),
        `Codex's resumed thread gets only the delta and the message: ${last}`,
      );
      check(
        items.some((i) => i.includes('first on codex') && !i.includes('Context from Baton')),
        `Codex's own earlier turns are there natively: ${json(items)}`,
      );
      check(codex.cacheKey(-1) === codex.cacheKey(0), 'the same Codex thread (prompt_cache_key) as run 1');
    },
  },
  {
    // The same across an ACP agent: Claude -> codex-acp -> Claude.
    name: 'provider_switch_acp',
    models: {
      claude: [
        { kind: 'text', text: 'Claude one.' },
        { kind: 'text', text: 'Claude three.' },
      ],
      'codex-acp': [{ kind: 'text', text: 'ACP two.' }],
    },
    async drive({ h, cwd, model }) {
      const t = await h.thread({ threadId: 'thr_switch_acp', cwd, ...onProvider('claude') });
      const one = await completed(h, t, 'first on claude');
      const two = await completed(h, t, 'second, on codex-acp', { provider: 'codex-acp' });
      const three = await completed(h, t, 'third, back on claude', { provider: 'claude' });
      check(
        json(assistantTexts(h, t)) === json(['Claude one.', 'ACP two.', 'Claude three.']),
        `each provider answered its run, got ${json(assistantTexts(h, t))}`,
      );
      const seeds = seedsOf(h, t);
      check(
        json(seeds.map((s) => [s.runId, s.strategy, s.coveredRunOrdinals])) ===
          json([
            [two, 'full', [1]],
            [three, 'delta', [2]],
          ]),
        `the ACP agent told run 1, Claude the delta of run 2, got ${json(seeds.map((s) => [s.strategy, s.coveredRunOrdinals]))}`,
      );
      check(
        seeds[0]!.text.includes('first on claude') && seeds[0]!.text.includes('Claude one.'),
        `the ACP agent's handoff tells Claude's run: ${seeds[0]!.text}`,
      );
      check(
        seeds[1]!.text.includes('ACP two.') && !seeds[1]!.text.includes('Claude one.'),
        `Claude's handoff tells only the ACP run: ${seeds[1]!.text}`,
      );
      checkTransfersConsumed(h, t, [
        ['provider_handoff', 'claude', 'acp', two],
        ['provider_handoff', 'acp', 'claude', three],
      ]);
      const run2 = h.store.projections.get('runs', two)!;
      check(run2.provider === 'acp', `run 2 on the ACP provider, got ${run2.provider}`);
      check(h.store.projections.get('threads', t)!.provider === 'claude', 'the thread is back on Claude');
      const claudeThread = providerThreadOf(h, one);
      check(
        claudeThread && providerThreadOf(h, three) === claudeThread,
        `Claude's session taken up again: ${json([one, three].map((r) => providerThreadOf(h, r)))}`,
      );
      const refs = nativeRefsOf(h, t, claudeThread);
      check(refs.length === 1, `one native Claude session, got ${json(refs)}`);

      const claude = model('claude');
      const acp = model('codex-acp');
      if (!claude || !acp) return;
      const toAcp = acp.userTexts(-1).join('\n');
      check(
        toAcp.includes('first on claude') && toAcp.includes('Claude one.'),
        `codex-acp's first request carries Claude's run: ${toAcp}`,
      );
      const back = claude.userTexts(-1);
      check(back[0] === 'first on claude', `Claude's session resumed, its first turn as it was: ${json(back)}`);
      check(
        (back.at(-1) ?? '').includes('ACP two.') && !(back.at(-1) ?? '').includes('Claude one.'),
        `Claude told only the ACP run: ${back.at(-1)}`,
      );
    },
  },
  {
    // A switch after a rollback: the handoff never covers a rolled-back run.
    name: 'switch_after_rollback',
    models: {
      codex: [
        { kind: 'text', text: 'Kept answer.' },
        { kind: 'text', text: 'Rolled-back answer.' },
        { kind: 'text', text: 'Codex again.' },
      ],
      claude: [{ kind: 'text', text: 'On Claude.' }],
    },
    async drive({ h, cwd, model }) {
      const t = await h.thread({ threadId: 'thr_switch_rb', cwd, ...onProvider('codex') });
      const one = await completed(h, t, 'kept message');
      const two = await completed(h, t, 'rolled-back message');
      await rolledBack(h, t, 1);
      check(h.store.projections.get('runs', two)!.status === 'rolled_back', 'run 2 rolled back');
      const three = await completed(h, t, 'now on claude', { provider: 'claude' });
      check(h.store.projections.get('runs', three)!.ordinal === 2, 'the next run is run 2 again');
      const seeds = seedsOf(h, t);
      check(
        json(seeds.map((s) => [s.runId, s.strategy, s.coveredRunOrdinals])) === json([[three, 'full', [1]]]),
        `the handoff covers run 1 only, got ${json(seeds.map((s) => [s.strategy, s.coveredRunOrdinals]))}`,
      );
      const text = seeds[0]!.text;
      check(text.includes('kept message') && text.includes('Kept answer.'), `the handoff tells the kept run: ${text}`);
      check(
        !text.includes('rolled-back message') && !text.includes('Rolled-back answer.'),
        `the handoff tells nothing of the rolled-back run: ${text}`,
      );
      checkTransfersConsumed(h, t, [['provider_handoff', 'codex', 'claude', three]]);
      const visible = h.store.projections
        .list('messages', t)
        .filter((m) => m.role === 'assistant' && !m.rolledBack)
        .map((m) => m.text);
      check(json(visible) === json(['Kept answer.', 'On Claude.']), `the visible conversation: ${json(visible)}`);
      const claude = model('claude');
      if (claude) {
        const told = claude.userTexts(-1).join('\n');
        check(told.includes('kept message'), `Claude told the kept run: ${told}`);
        check(
          !told.includes('rolled-back message') && !told.includes('Rolled-back answer.'),
          `Claude told nothing of the rolled-back run: ${told}`,
        );
      }

      // Rolling back the run that carried the handoff supersedes it and its transfer...
      await rolledBack(h, t, 1);
      const handoff = h.store.projections.get('context_handoffs', seeds[0]!.handoffId ?? '');
      check(handoff?.status === 'superseded', `the handoff superseded, got ${json(handoff?.status)}`);
      const transfer = transfersOf(h, t)[0];
      check(
        transfer?.status === 'superseded' && transfer.reason === 'rolled back to run 1',
        `its transfer superseded by the rollback, got ${json(transfer)}`,
      );
      // ...and back on Codex, its own thread (rolled back to run 1 too) holds every kept run: it is told nothing.
      const four = await completed(h, t, 'back on codex', { provider: 'codex' });
      check(providerThreadOf(h, four) === providerThreadOf(h, one), "Codex's own thread taken up again");
      const toCodex = seedsOf(h, t).filter((s) => s.runId === four);
      check(toCodex.length === 0, `no handoff to Codex, got ${json(toCodex)}`);
      const transfers = transfersOf(h, t).map((x) => [x.kind, x.fromProvider, x.toProvider, x.status]);
      check(
        json(transfers) ===
          json([
            ['provider_handoff', 'codex', 'claude', 'superseded'],
            ['provider_handoff', 'claude', 'codex', 'superseded'],
          ]),
        `the switch back owes Codex nothing, got ${json(transfers)}`,
      );
      const codex = model('codex');
      if (!codex) return;
      // Codex's own conversation: the kept run and this message, nothing rolled back.
      const said = codex.userTexts(-1).filter((text) => !text.startsWith('<environment_context>'));
      check(json(said) === json(['kept message', 'back on codex']), `Codex's request: ${json(said)}`);
    },
  },
];
