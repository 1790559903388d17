import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../../runtime.js';
import { assistantTexts } from '../baton.js';
import { checkTransfersConsumed, completed, eventsOf, providerThreadOf, seedsOf } from '../cross-baton.js';
import { onProvider, type CrossProvider, type CrossScenario, type ModelSide } from '../cross-scenario.js';
import { check } from '../scenario.js';

const json = JSON.stringify;

/** Forks a thread (onto another provider) and returns the fork's id (its command's result). */
async function fork(
  h: Harness,
  command: { sourceThreadId: string; source: Record<string, unknown>; threadId: string; provider: CrossProvider },
  cwd?: string,
): Promise<Record<string, unknown>> {
  const { provider, ...rest } = command;
  const ack = (await h.command({
    type: 'thread.fork',
    ...rest,
    ...onProvider(provider),
    ...(cwd ? { cwd } : {}),
  })) as { ok: boolean; result?: Record<string, unknown> };
  check(ack.ok && ack.result, `fork refused: ${json(ack)}`);
  return ack.result;
}

/** A fork's first run (on `to`) was resolved portably and told its source's run 1, nothing after it. */
function checkPortableSeed(h: Harness, forkId: string, sourceId: string, forkRun: string, to = 'claude'): void {
  const resolved = eventsOf(h, forkId, 'thread.fork-resolved')[0]?.payload;
  check(resolved?.strategy === 'portable_context', `resolved portably, got ${json(resolved)}`);
  const seeds = seedsOf(h, forkId);
  check(seeds.length === 1, `one seed on the fork, got ${seeds.length}`);
  const seed = seeds[0]!;
  check(
    seed.runId === forkRun && seed.fromThreadId === sourceId && json(seed.coveredRunOrdinals) === '[1]',
    `the fork's run is told the source's run 1, got ${json({ ...seed, text: undefined })}`,
  );
  check(
    seed.text.includes('remember the number 42') && seed.text.includes('Noted: 42.'),
    `the seed tells run 1: ${seed.text}`,
  );
  check(
    !seed.text.includes('number 7') && !seed.text.includes('Noted: 7.'),
    `the seed tells nothing after the fork point: ${seed.text}`,
  );
  checkTransfersConsumed(h, forkId, [['fork', 'codex', to, forkRun]]);
}

/** Live: the fork provider's first request carries the source up to the fork point and nothing after it. */
function checkToldFork(side: ModelSide | null): void {
  if (!side) return;
  const told = side.userTexts(-1).join('\n');
  check(
    told.includes('remember the number 42') && told.includes('Noted: 42.') && told.includes('what was the number?'),
    `the fork's first request carries the source's run 1: ${told}`,
  );
  check(!told.includes('number 7') && !told.includes('Noted: 7.'), `and nothing after the fork point: ${told}`);
}

/** The source's two Codex runs of the fork scenarios. */
const sourceModel = [
  { kind: 'text', text: 'Noted: 42.' },
  { kind: 'text', text: 'Noted: 7.' },
] as const;

/** Forks onto another provider (portable, told Baton's account of the source) and merging back. */
export const crossForkScenarios: CrossScenario[] = [
  {
    // A Codex run forked onto Claude: the fork's seed covers run 1 and not run 2.
    name: 'fork_portable_cross',
    models: { codex: sourceModel, claude: [{ kind: 'text', text: 'The number was 42.' }] },
    async drive({ h, cwd, model }) {
      const source = await h.thread({ threadId: 'thr_xsource', cwd, ...onProvider('codex') });
      const one = await completed(h, source, 'remember the number 42');
      await completed(h, source, 'now remember the number 7');
      await fork(h, {
        sourceThreadId: source,
        source: { type: 'run', threadId: source, runId: one },
        threadId: 'thr_xfork',
        provider: 'claude',
      });
      const thread = h.store.projections.get('threads', 'thr_xfork')!;
      check(thread.provider === 'claude' && thread.lineage.parentThreadId === source, 'a Claude fork of the source');
      const forkRun = await completed(h, 'thr_xfork', 'what was the number?');
      checkPortableSeed(h, 'thr_xfork', source, forkRun);
      check(assistantTexts(h, 'thr_xfork').at(-1) === 'The number was 42.', 'Claude answered in the fork');
      check(assistantTexts(h, source).length === 2, 'the source thread is untouched');
      check(providerThreadOf(h, forkRun) !== providerThreadOf(h, one), 'the fork has its own provider thread');
      checkToldFork(model('claude'));
    },
  },
  {
    // A fork from run 1's checkpoint onto Claude, in a workspace of its own written from that checkpoint.
    name: 'fork_from_checkpoint',
    models: { codex: sourceModel, claude: [{ kind: 'text', text: 'The number was 42.' }] },
    async drive({ h, cwd, model }) {
      writeFileSync(join(cwd, 'a.txt'), 'before\n');
      const source = await h.thread({ threadId: 'thr_csource', cwd, ...onProvider('codex') });
      const one = await completed(h, source, 'remember the number 42');
      writeFileSync(join(cwd, 'a.txt'), 'after run 1\n'); // run 2's checkpoint has it, not run 1's
      await completed(h, source, 'now remember the number 7');
      const checkpoint = h.store.projections.list('checkpoints', source).find((c) => c.runId === one);
      check(checkpoint?.status === 'ready', `run 1's checkpoint ready, got ${json(checkpoint)}`);
      // Beside the workspace (the run's own folder), so transcripts name it by the workspace's placeholder.
      const forkCwd = `${cwd}-fork`;
      const result = await fork(
        h,
        {
          sourceThreadId: source,
          source: { type: 'checkpoint', threadId: source, checkpointId: checkpoint.id },
          threadId: 'thr_cfork',
          provider: 'claude',
        },
        forkCwd,
      );
      check(
        json(result.forkedFrom) === json({ threadId: source, runId: one, runOrdinal: 1 }),
        `the checkpoint resolves to run 1, got ${json(result.forkedFrom)}`,
      );
      const forked = h.store.projections.get('threads', 'thr_cfork')!;
      check(
        forked.lineage.forkedFrom?.checkpointId === checkpoint.id,
        `lineage names the checkpoint: ${json(forked.lineage)}`,
      );
      check(forked.workspace.cwd === forkCwd, `the fork works in its own folder: ${forked.workspace.cwd}`);
      const forkRun = await completed(h, 'thr_cfork', 'what was the number?');
      // The fork ran in a workspace of its own, written from run 1's checkpoint (before its first run).
      check(
        existsSync(forkCwd) && json(readdirSync(forkCwd)) === json(['a.txt']),
        `the fork's workspace has run 1's files: ${existsSync(forkCwd) ? json(readdirSync(forkCwd)) : 'none'}`,
      );
      check(readFileSync(join(forkCwd, 'a.txt'), 'utf8') === 'before\n', "the fork's a.txt is run 1's");
      checkPortableSeed(h, 'thr_cfork', source, forkRun);
      check(readFileSync(join(cwd, 'a.txt'), 'utf8') === 'after run 1\n', "the source's workspace is untouched");
      checkToldFork(model('claude'));
    },
  },
  {
    // A fork from a node of run 1 (its root) onto an ACP agent: the fork point is that node's run.
    name: 'fork_from_node',
    models: { codex: sourceModel, 'claude-agent-acp': [{ kind: 'text', text: 'The number was 42.' }] },
    async drive({ h, cwd, model }) {
      const source = await h.thread({ threadId: 'thr_nsource', cwd, ...onProvider('codex') });
      const one = await completed(h, source, 'remember the number 42');
      await completed(h, source, 'now remember the number 7');
      const nodeId = h.store.projections.get('runs', one)!.rootNodeId;
      const result = await fork(h, {
        sourceThreadId: source,
        source: { type: 'node', nodeId },
        threadId: 'thr_nfork',
        provider: 'claude-agent-acp',
      });
      check(
        json(result.forkedFrom) === json({ threadId: source, runId: one, runOrdinal: 1 }),
        `the node resolves to run 1, got ${json(result.forkedFrom)}`,
      );
      const forked = h.store.projections.get('threads', 'thr_nfork')!;
      check(
        forked.provider === 'acp' &&
          forked.acpAgent === 'claude-agent-acp' &&
          forked.lineage.forkedFrom?.nodeId === nodeId,
        `an ACP fork whose lineage names the node: ${json({ ...forked.lineage, provider: forked.provider })}`,
      );
      const forkRun = await completed(h, 'thr_nfork', 'what was the number?');
      checkPortableSeed(h, 'thr_nfork', source, forkRun, 'acp');
      check(assistantTexts(h, 'thr_nfork').at(-1) === 'The number was 42.', 'the ACP agent answered in the fork');
      checkToldFork(model('claude-agent-acp'));
    },
  },
  {
    // A fork on Claude merged back into its Codex parent: the parent's next run is told the fork's work.
    name: 'merge_back',
    models: {
      codex: [
        { kind: 'text', text: 'Source noted.' },
        { kind: 'text', text: 'Blue it is.' },
      ],
      claude: [{ kind: 'text', text: 'Fork decided: blue.' }],
    },
    async drive({ h, cwd, model }) {
      const source = await h.thread({ threadId: 'thr_msource', cwd, ...onProvider('codex') });
      const one = await completed(h, source, 'we need a colour for the logo');
      await fork(h, {
        sourceThreadId: source,
        source: { type: 'run', threadId: source, runId: one },
        threadId: 'thr_mfork',
        provider: 'claude',
      });
      await completed(h, 'thr_mfork', 'try blue in the fork');
      const merged = (await h.command({ type: 'thread.merge_back', threadId: source, fromThreadId: 'thr_mfork' })) as {
        ok: boolean;
        result?: { transferId: string; throughRunOrdinal: number };
      };
      check(merged.ok && merged.result?.throughRunOrdinal === 1, `merged through the fork's run 1: ${json(merged)}`);
      const next = await completed(h, source, 'what did the fork decide?');
      const seeds = seedsOf(h, source);
      check(seeds.length === 1, `one seed on the parent, got ${seeds.length}`);
      const seed = seeds[0]!;
      check(
        seed.runId === next && seed.fromThreadId === 'thr_mfork' && seed.transferId === merged.result!.transferId,
        `the parent's next run is told the fork's work, got ${json({ ...seed, text: undefined })}`,
      );
      check(
        seed.text.includes('try blue in the fork') && seed.text.includes('Fork decided: blue.'),
        `the seed tells the fork's run: ${seed.text}`,
      );
      checkTransfersConsumed(h, source, [['merge_back', 'claude', 'codex', next]]);
      const transfer = h.store.projections.list('context_transfers', source)[0]!;
      check(
        transfer.sourcePoint.threadId === 'thr_mfork' &&
          transfer.sourcePoint.runOrdinal === 1 &&
          transfer.basePoint?.runOrdinal === 1,
        `from the fork's run 1, on the fork point run 1: ${json(transfer)}`,
      );
      check(providerThreadOf(h, next) === providerThreadOf(h, one), "the parent's Codex thread is taken up again");
      check(assistantTexts(h, source).at(-1) === 'Blue it is.', 'the parent answered');
      const codex = model('codex');
      if (!codex) return;
      const last = codex.userTexts(-1).at(-1) ?? '';
      for (const said of ['try blue in the fork', 'Fork decided: blue.', 'what did the fork decide?'])
        check(last.includes(said), `the parent's request carries "${said}": ${last}`);
    },
  },
];
