import type { Logger } from 'pino';
import type { CheckpointStore, Merged } from '../checkpoints/checkpoint-store.js';
import type { CommandOf } from '../domain/commands.js';
import { BatonError } from '../domain/errors.js';
import { idOf } from '../domain/ids.js';
import type { ProjectionRow } from '../domain/projections.js';
import type { CheckpointStatus } from '../domain/statuses.js';
import type { Store } from '../persistence/store.js';
import { supervisorOf } from './command-checks.js';
import { mergeBackSource, recordMergeBack, type MergeBackSource } from './merge-back-command.js';
import { rootCheckpointAt } from './root-checkpoints.js';
import type { StepContext } from './step-context.js';
import type { StepOptions, StepOutcome } from './step-outcome.js';
import type { ThreadActor } from './thread-actor.js';

/** What a merge of files needs of the runtime. */
export interface MergeBackFilesEnv {
  readonly store: Store;
  readonly checkpoints: CheckpointStore | null;
  readonly logger: Logger;
  /** The runtime's workspace check (see Runtime.checkWorkspace). */
  checkWorkspace(cwd: string): Promise<void>;
}

type MergeBack = CommandOf<'thread.merge_back'>;

interface Prepared {
  source: MergeBackSource;
  /** This thread's last counted run: a rollback to it undoes the merge. */
  lastOrdinal: number;
  cwd: string;
  merged: Merged;
}

/**
 * `thread.merge_back { files: true }`: the fork's file changes since the fork point (its
 * fork point's checkpoint to its latest finished run's) are applied to this thread's
 * workspace three-way (see CheckpointStore.merge), like a rollback's restore before its
 * step, inside the thread's mailbox turn; the step then records the merge_back transfer
 * and a `manual` checkpoint of the workspace after the merge. A refusal, a conflict
 * included, leaves the files as they were and stores nothing but the command's receipt;
 * a step that fails after the files were written puts them back.
 */
export async function mergeBackFiles(
  actor: ThreadActor,
  c: MergeBack,
  env: MergeBackFilesEnv,
  options: StepOptions,
): Promise<StepOutcome<Record<string, unknown>>> {
  const written: Prepared[] = [];
  const outcome = await actor.runPrepared(
    async (thread) => {
      const prepared = await prepare(thread, c, env);
      written.push(prepared);
      return prepared;
    },
    (thread, prepared) => commit(thread, c, prepared, env),
    options,
  );
  const undo = written[0];
  if (!outcome.ok && undo && env.checkpoints)
    await env.checkpoints
      .restore(undo.cwd, undo.merged.previousTree)
      .catch((error: unknown) =>
        env.logger.error({ err: error, threadId: c.threadId }, 'a merge-back whose step failed could not be undone'),
      );
  return outcome;
}

async function prepare(thread: StepContext, c: MergeBack, env: MergeBackFilesEnv): Promise<Prepared> {
  if (!env.checkpoints)
    throw new BatonError('unsupported', "this Baton keeps no checkpoints, which a merge of a fork's files needs");
  const sup = thread.state(supervisorOf(thread));
  if (!sup) throw new BatonError('not_found', `no thread ${thread.threadId}`);
  const source = mergeBackSource(thread.threadId, c.fromThreadId, env.store);
  const lastOrdinal = sup.context.countedRunIds.length;
  // The merge is undone by a rollback to the last run: a thread that could not take one now cannot take the merge.
  if (!sup.can({ type: 'ROLLBACK', runOrdinal: lastOrdinal }))
    throw new BatonError(
      'invalid_transition',
      `thread ${thread.threadId} cannot take a fork's files now (a run is going, or it is archived)`,
      { state: sup.value },
    );
  const cwd = sup.context.cwd;
  const forkCwd = source.fork.workspace.cwd;
  if (forkCwd === cwd)
    throw new BatonError(
      'invalid_command',
      `fork ${c.fromThreadId} works in this thread's own workspace: its files are already here`,
      { cwd },
    );
  const base = forkPointTree(source.fork, env.store);
  const theirs = readyTree(
    rootCheckpointAt(env.store, source.fork.id, source.latest.ordinal),
    `run ${source.latest.ordinal} of fork ${source.fork.id}`,
  );
  readyTree(
    rootCheckpointAt(env.store, thread.threadId, lastOrdinal),
    `run ${lastOrdinal} of thread ${thread.threadId}`,
  );
  // Checked again: the workspace may have been replaced (by a link to `/`, say) since the thread was made.
  await env.checkWorkspace(cwd).catch((error: unknown) => {
    throw new BatonError(
      'conflict',
      `thread ${thread.threadId}'s workspace cannot take the fork's files: ${error instanceof Error ? error.message : String(error)}`,
      { cwd },
    );
  });
  const merged = await env.checkpoints.merge(cwd, forkCwd, base, theirs, `${thread.threadId}/merge-${c.commandId}`);
  return { source, lastOrdinal, cwd, merged };
}

function commit(thread: StepContext, c: MergeBack, p: Prepared, env: MergeBackFilesEnv): Record<string, unknown> {
  const recorded = recordMergeBack(thread, c.fromThreadId, env, p.source);
  const { capture } = p.merged;
  const checkpointId = thread.current.newId('checkpoint');
  thread.current.addEvent({
    type: 'checkpoint.recorded',
    payload: {
      checkpoint: {
        id: checkpointId,
        threadId: thread.threadId,
        scopeId: idOf('checkpointScope', `cscope_${recorded.transferId}`),
        scopeKind: 'manual',
        runId: null,
        nodeId: null,
        // Counted with the next run: a rollback to the last run marks it stale as it restores that run's files.
        runOrdinal: p.lastOrdinal + 1,
        runStatus: null,
        status: 'ready',
        treeRef: capture.commit,
        diff: { files: capture.diff.files, additions: capture.diff.additions, deletions: capture.diff.deletions },
        skippedFiles: capture.skipped,
        reason: `merged back from fork ${c.fromThreadId}`,
      },
    },
  });
  return { ...recorded, checkpointId, changedPaths: capture.diff.paths };
}

/**
 * The tree the fork's workspace was written from: its fork point's checkpoint (the one its
 * source named, else its run's). One made stale by a later rollback of this thread still
 * holds the fork's starting files, which is all a three-way base has to be.
 */
function forkPointTree(fork: ProjectionRow<'threads'>, store: Store): string {
  const point = fork.lineage.forkedFrom;
  const id = point ? (point.checkpointId ?? store.projections.get('runs', point.runId)?.checkpointId ?? null) : null;
  const checkpoint = id ? store.projections.get('checkpoints', id) : null;
  return readyTree(checkpoint, `the fork point of fork ${fork.id}`, ['ready', 'stale']);
}

function readyTree(
  checkpoint: ProjectionRow<'checkpoints'> | null,
  what: string,
  usable: CheckpointStatus[] = ['ready'],
): string {
  if (!checkpoint?.treeRef || !usable.includes(checkpoint.status))
    throw new BatonError(
      'not_found',
      `${what} has no ready checkpoint to merge files with (${checkpoint ? `its checkpoint is ${checkpoint.status}` : 'it has none'})`,
      { checkpointId: checkpoint?.id ?? null, status: checkpoint?.status ?? null },
    );
  return checkpoint.treeRef;
}
