import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../../runtime.js';
import {
  checkTransfersConsumed,
  completed,
  completedApproving,
  rolledBack,
  seedsOf,
  transfersOf,
} from '../cross-baton.js';
import { onProvider, type CrossScenario } from '../cross-scenario.js';
import { check } from '../scenario.js';

const json = JSON.stringify;

/** Every file under `dir` and what it holds, byte for byte (base64), in a fixed order. */
function filesOf(dir: string, under = ''): [string, string][] {
  return readdirSync(join(dir, under))
    .sort()
    .flatMap((name): [string, string][] => {
      const rel = under ? `${under}/${name}` : name;
      return statSync(join(dir, rel)).isDirectory()
        ? filesOf(dir, rel)
        : [[rel, readFileSync(join(dir, rel)).toString('base64')]];
    });
}

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

/** Five numbered lines, with line `n` replaced where given. */
const lines = (n?: number, text?: string) => `${[1, 2, 3, 4, 5].map((i) => (i === n ? text : String(i))).join('\n')}\n`;

// A type, not an interface: the command's `Record<string, unknown>` result casts to it.
type MergeAck = {
  ok: boolean;
  result?: { transferId: string; throughRunOrdinal: number; checkpointId: string; changedPaths: string[] };
  error?: { code: string; details?: { paths?: string[] } };
};

/** `thread.merge_back { files: true }` under a command id of its own, so the step's events can be told apart. */
const mergeFiles = async (h: Harness, threadId: string, fromThreadId: string, commandId: string) =>
  (await h.command({ commandId, type: 'thread.merge_back', threadId, fromThreadId, files: true })) as MergeAck;

/**
 * A Codex source with one run, forked from it onto Claude in a workspace of its own (beside the
 * source's, so transcripts name it by the workspace's placeholder); the fork's id and folder.
 */
async function sourceAndFork(h: Harness, cwd: string, ids: { source: string; fork: string }, said: string) {
  const source = await h.thread({ threadId: ids.source, cwd, ...onProvider('codex') });
  const one = await completed(h, source, said);
  const forkCwd = `${cwd}-fork`;
  const ack = await h.command({
    type: 'thread.fork',
    sourceThreadId: source,
    source: { type: 'run', threadId: source, runId: one },
    threadId: ids.fork,
    cwd: forkCwd,
    ...onProvider('claude'),
  });
  check(ack.ok, `fork refused: ${json(ack)}`);
  return { source, one, fork: ids.fork, forkCwd };
}

/** Merging a fork's files back across providers: applied as a checkpointed step, or refused on a conflict. */
export const crossMergeScenarios: CrossScenario[] = [
  {
    // The Claude fork's agent writes a file; merged back with files, it is in the Codex parent's
    // workspace as a checkpoint, the parent's next run is told the fork's work, and a rollback
    // to the parent's run before the merge removes the file again.
    name: 'merge_back_files',
    models: {
      codex: [
        { kind: 'text', text: 'Parent noted.' },
        { kind: 'text', text: 'The fork wrote fork.txt.' },
      ],
      claude: [
        { kind: 'command', command: "printf 'written in the fork\\n' > fork.txt", callId: 'toolu_forkfile' },
        { kind: 'text', text: 'Wrote fork.txt.' },
      ],
    },
    async drive({ h, cwd, live, model }) {
      writeFileSync(join(cwd, 'readme.txt'), 'the parent\n');
      const { source, one, fork, forkCwd } = await sourceAndFork(
        h,
        cwd,
        { source: 'thr_fsource', fork: 'thr_ffork' },
        'we need a file',
      );
      await completedApproving(h, fork, 'write fork.txt in the fork', {
        live,
        standIn: () => writeFileSync(join(forkCwd, 'fork.txt'), 'written in the fork\n'),
      });
      check(read(forkCwd, 'fork.txt') === 'written in the fork\n', "the fork's agent wrote fork.txt in its workspace");
      check(!existsSync(join(cwd, 'fork.txt')), "and not in the parent's");

      const merged = await mergeFiles(h, source, fork, 'cmd_xmerge_files');
      check(merged.ok && merged.result, `merged with files: ${json(merged)}`);
      const { transferId, checkpointId, changedPaths, throughRunOrdinal } = merged.result;
      check(throughRunOrdinal === 1 && json(changedPaths) === json(['fork.txt']), `fork.txt changed: ${json(merged)}`);
      check(
        json(filesOf(cwd).map(([p]) => p)) === json(['fork.txt', 'readme.txt']) &&
          read(cwd, 'fork.txt') === 'written in the fork\n',
        `fork.txt is in the parent's workspace: ${json(filesOf(cwd).map(([p]) => p))}`,
      );
      // One step: the transfer and the merge's `manual` checkpoint recorded by the command together.
      const step = h.store.events.readThreadAfter(source, 0).filter((e) => e.commandId === 'cmd_xmerge_files');
      const recorded = step.flatMap((e) =>
        e.type === 'checkpoint.recorded' ? [[e.payload.checkpoint.id, e.payload.checkpoint.scopeKind]] : [],
      );
      check(
        step.some((e) => e.type === 'context-transfer.recorded') && json(recorded) === json([[checkpointId, 'manual']]),
        `the merge's step records the transfer and a manual checkpoint: ${json(step.map((e) => e.type))}`,
      );
      const checkpoint = h.store.projections.get('checkpoints', checkpointId);
      check(
        checkpoint?.scopeKind === 'manual' &&
          checkpoint.status === 'ready' &&
          checkpoint.runOrdinal === 2 &&
          checkpoint.diff?.files === 1,
        `a ready manual checkpoint counted with the next run: ${json(checkpoint)}`,
      );

      const next = await completed(h, source, 'what did the fork write?');
      const seeds = seedsOf(h, source);
      check(
        seeds.length === 1 &&
          seeds[0]!.runId === next &&
          seeds[0]!.fromThreadId === fork &&
          seeds[0]!.transferId === transferId,
        `the parent's next run is told the fork's work: ${json(seeds.map((s) => ({ ...s, text: undefined })))}`,
      );
      check(seeds[0]!.text.includes('write fork.txt in the fork'), `the seed tells the fork's run: ${seeds[0]!.text}`);
      checkTransfersConsumed(h, source, [['merge_back', 'claude', 'codex', next]]);
      const codex = model('codex');
      if (codex) {
        const last = codex.userTexts(-1).at(-1) ?? '';
        check(last.includes('write fork.txt in the fork'), `the parent's request carries the fork's run: ${last}`);
      }

      // Back to the parent's run before the merge: the merged file goes, the merge's checkpoint is stale.
      const rolled = (await rolledBack(h, source, 1)) as { changedPaths?: string[] };
      check(json(rolled.changedPaths) === json(['fork.txt']), `the rollback takes fork.txt away: ${json(rolled)}`);
      check(
        json(filesOf(cwd).map(([p]) => p)) === json(['readme.txt']),
        `fork.txt is gone from the parent's workspace: ${json(filesOf(cwd).map(([p]) => p))}`,
      );
      check(
        h.store.projections.get('checkpoints', checkpointId)?.status === 'stale',
        "the merge's checkpoint is stale",
      );
      check(h.store.projections.get('runs', next)?.status === 'rolled_back', "the parent's next run rolled back");
      check(h.store.projections.get('runs', one)?.status === 'completed', 'run 1 stays');
      check(read(forkCwd, 'fork.txt') === 'written in the fork\n', "the fork's own file stays");
    },
  },
  {
    // The Codex parent and its Claude fork change line 3 of a.txt: the merge of files is refused
    // `conflict` naming it, and nothing changes (files, events, transfers).
    name: 'merge_back_conflict',
    models: {
      codex: [
        { kind: 'text', text: 'Parent noted.' },
        { kind: 'text', text: 'Parent changed line 3.' },
      ],
      claude: [
        { kind: 'command', command: "sed -i '3s/.*/fork/' a.txt", callId: 'toolu_forkline' },
        { kind: 'text', text: 'Changed line 3.' },
      ],
    },
    async drive({ h, cwd, live }) {
      writeFileSync(join(cwd, 'a.txt'), lines());
      const { source, fork, forkCwd } = await sourceAndFork(
        h,
        cwd,
        { source: 'thr_ksource', fork: 'thr_kfork' },
        'keep a.txt',
      );
      await completedApproving(h, fork, 'change line 3 in the fork', {
        live,
        standIn: () => writeFileSync(join(forkCwd, 'a.txt'), lines(3, 'fork')),
      });
      check(read(forkCwd, 'a.txt') === lines(3, 'fork'), `the fork's agent changed line 3: ${read(forkCwd, 'a.txt')}`);
      // The parent changes the same line between its runs (its run 2's checkpoint holds it).
      writeFileSync(join(cwd, 'a.txt'), lines(3, 'parent'));
      await completed(h, source, 'I changed line 3 too');

      const before = filesOf(cwd);
      const sequence = h.store.events.lastSequence();
      const merged = await mergeFiles(h, source, fork, 'cmd_xmerge_conflict');
      check(
        !merged.ok && merged.error?.code === 'conflict' && json(merged.error.details?.paths) === json(['a.txt']),
        `refused conflict naming a.txt: ${json(merged)}`,
      );
      check(json(filesOf(cwd)) === json(before), "the parent's workspace is byte for byte as it was");
      check(read(cwd, 'a.txt') === lines(3, 'parent'), "the parent's line 3 stays");
      check(h.store.events.lastSequence() === sequence, 'no event stored');
      check(transfersOf(h, source).length === 0, `no transfer recorded: ${json(transfersOf(h, source))}`);
      check(
        !h.store.projections.list('checkpoints', source).some((c) => c.scopeKind === 'manual'),
        'no merge checkpoint',
      );
    },
  },
];
