import { z } from 'zod';
import type { Checkpoint } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';
import { CheckpointId } from '../domain/ids.js';

/**
 * The `checkpoint-diff` query: a checkpoint's changes file by file, read from the trees the
 * checkpoint store keeps (src/server/checkpoint-diff-git.ts). Schemas and the choice of the
 * base only (no Node built-ins), so the console can import them.
 */
export const CheckpointDiffQuery = z
  .object({
    type: z.literal('checkpoint-diff'),
    checkpointId: CheckpointId,
    /**
     * Diff from this checkpoint of the same thread instead. By default the base is the one
     * the checkpoint's own summary was counted against: the thread's checkpoint of the run
     * before (none for the start: every file is added), for a subagent's the capture before
     * it in its run.
     */
    baseCheckpointId: CheckpointId.optional(),
  })
  .strict();
export type CheckpointDiffQuery = z.infer<typeof CheckpointDiffQuery>;

export const CheckpointDiffFile = z.object({
  path: z.string(),
  /** A change of type (a file that became a link) is `modified`. */
  status: z.enum(['added', 'modified', 'deleted']),
  binary: z.boolean(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  /** The file's unified diff (git's `diff --git` form); '' when it was left out. */
  patch: z.string(),
  /** The patch was cut at a line, or left out: the file or the whole answer is over its limit. */
  truncated: z.boolean(),
});
export type CheckpointDiffFile = z.infer<typeof CheckpointDiffFile>;

export const DiffLimits = z.object({
  /** Files listed, in path order; the rest are counted in `totalFiles` only. */
  files: z.number().int().positive(),
  /** One file's patch, in characters. */
  patchChars: z.number().int().positive(),
  /** All patches of one answer together, in characters. */
  totalPatchChars: z.number().int().positive(),
  /** A file whose two versions weigh more than this together is not diffed at all (its counts still are). */
  fileBytes: z.number().int().positive(),
});
export type DiffLimits = z.infer<typeof DiffLimits>;

export const CheckpointDiffResult = z.object({
  checkpointId: CheckpointId,
  /** The checkpoint diffed from; null: from nothing (every file is added). */
  baseCheckpointId: CheckpointId.nullable(),
  files: z.array(CheckpointDiffFile),
  /** Files that differ in all (`files` holds at most `limits.files` of them). */
  totalFiles: z.number().int().nonnegative(),
  /** Files were left off the list, or a patch was cut or left out. */
  truncated: z.boolean(),
  limits: DiffLimits,
});
export type CheckpointDiffResult = z.infer<typeof CheckpointDiffResult>;

const kept = (c: Checkpoint): boolean => c.treeRef !== null && (c.status === 'ready' || c.status === 'stale');

/**
 * The checkpoint `target`'s capture was diffed against (the base of its summary), among the
 * thread's checkpoints in their order: a subagent's, the newest ready capture of its run
 * before it; otherwise (and for a subagent first in its run) the run before's root
 * checkpoint, the newest ready one (a stale one when no other is left); none for the start.
 */
export function defaultBase(all: readonly Checkpoint[], target: Checkpoint): Checkpoint | null {
  const at = all.findIndex((c) => c.id === target.id);
  const before = all.slice(0, at < 0 ? all.length : at).filter(kept);
  if (target.scopeKind === 'subagent') {
    const inRun = before.filter((c) => c.runId === target.runId && c.status === 'ready');
    if (inRun.length) return inRun.at(-1)!;
  }
  const ordinal = target.runOrdinal;
  if (ordinal === null || ordinal === 0) return null;
  const roots = before.filter((c) => c.scopeKind === 'root_run' && c.runOrdinal === ordinal - 1);
  return roots.findLast((c) => c.status === 'ready') ?? roots.at(-1) ?? null;
}

/** The two ends of a diff: typed `not_found` for an unknown checkpoint, `conflict` for one not ready. */
export function diffEnds(
  q: CheckpointDiffQuery,
  find: (id: string) => Checkpoint | null,
  threadCheckpoints: (threadId: string) => readonly Checkpoint[],
): { target: Checkpoint & { treeRef: string }; base: Checkpoint | null } {
  const target = find(q.checkpointId);
  if (!target) throw new BatonError('not_found', `no checkpoint ${q.checkpointId}`, { checkpointId: q.checkpointId });
  const ready = (c: Checkpoint): c is Checkpoint & { treeRef: string } => c.status === 'ready' && c.treeRef !== null;
  if (!ready(target))
    throw new BatonError('conflict', `checkpoint ${target.id} is ${target.status}: it has no files to diff`, {
      checkpointId: target.id,
      status: target.status,
    });
  if (q.baseCheckpointId === undefined)
    return { target, base: defaultBase(threadCheckpoints(target.threadId), target) };
  const base = find(q.baseCheckpointId);
  // Another thread's trees live in its own workspace's shadow repository: not comparable here.
  if (!base || base.threadId !== target.threadId)
    throw new BatonError('not_found', `no checkpoint ${q.baseCheckpointId} in thread ${target.threadId}`, {
      checkpointId: q.baseCheckpointId,
    });
  if (!ready(base))
    throw new BatonError('conflict', `checkpoint ${base.id} is ${base.status}: it has no files to diff`, {
      checkpointId: base.id,
      status: base.status,
    });
  return { target, base };
}
