import { BatonError } from '../domain/errors.js';
import type { ThreadId } from '../domain/ids.js';
import type { ProjectionRow } from '../domain/projections.js';
import type { Store } from '../persistence/store.js';
import { supervisorContext, supervisorOf, type HandlerEnv } from './command-checks.js';
import type { StepContext } from './step-context.js';

/** What a merge-back records: the fork's work through its latest stable run, owed to this thread's next run. */
export interface MergeBackRecorded extends Record<string, unknown> {
  threadId: ThreadId;
  fromThreadId: ThreadId;
  transferId: string;
  throughRunOrdinal: number;
}

/** The fork whose work is merged back, and its latest stable point: its latest finished run. */
export interface MergeBackSource {
  fork: ProjectionRow<'threads'>;
  latest: ProjectionRow<'runs'> & { ordinal: number };
}

/**
 * Which fork is merged back, through which run. Refused, typed: a thread that is not a fork
 * of this one, a fork with a run going (no stable point), a fork with no run of its own.
 */
export function mergeBackSource(threadId: ThreadId, fromThreadId: ThreadId, store: Store): MergeBackSource {
  const fork = store.projections.get('threads', fromThreadId);
  if (!fork) throw new BatonError('not_found', `no thread ${fromThreadId}`);
  if (fork.lineage.parentThreadId !== threadId || fork.lineage.relationshipToParent !== 'fork')
    throw new BatonError('invalid_command', `thread ${fromThreadId} is not a fork of thread ${threadId}`, {
      parentThreadId: fork.lineage.parentThreadId,
    });
  const runs = store.projections.list('runs', fromThreadId).filter((r) => r.ordinal !== null);
  if (runs.some((r) => ['queued', 'starting', 'running', 'waiting'].includes(r.status)))
    throw new BatonError(
      'invalid_transition',
      `fork ${fromThreadId} has a run going: merge back from a stable point, once it ends`,
    );
  const latest = runs
    .filter((r) => r.status === 'completed' || r.status === 'interrupted' || r.status === 'failed')
    .sort((a, b) => (b.ordinal ?? 0) - (a.ordinal ?? 0))[0];
  if (!latest?.ordinal)
    throw new BatonError('invalid_command', `fork ${fromThreadId} has no finished run of its own to merge back`);
  return { fork, latest: { ...latest, ordinal: latest.ordinal } };
}

/**
 * `thread.merge_back` (and `thread.message.send { mergeBackFromThreadId }`): a fork of this
 * thread tells its work back. A merge_back transfer is recorded now, with its base point
 * (the fork point) and its source point (the fork's latest finished run); the text is built
 * when this thread's next run starts and goes before that run's message, as a handoff the
 * user can read. `source` is given when it was chosen before the step (a merge of files:
 * see merge-back-files.ts).
 */
export function recordMergeBack(
  thread: StepContext,
  fromThreadId: ThreadId,
  env: Pick<HandlerEnv, 'store'>,
  source?: MergeBackSource,
): MergeBackRecorded {
  const sup = supervisorContext(thread);
  const { fork, latest } = source ?? mergeBackSource(thread.threadId, fromThreadId, env.store);
  const base = fork.lineage.forkedFrom;
  const transferId = thread.current.newId('contextTransfer');
  thread.deliver(
    supervisorOf(thread),
    {
      type: 'MERGE_BACK',
      throughOrdinal: latest.ordinal,
      transfer: {
        transferId,
        threadId: thread.threadId,
        kind: 'merge_back',
        sourceThreadId: fromThreadId,
        sourceRunId: latest.id,
        sourceRunOrdinal: latest.ordinal,
        fromProvider: latest.provider,
        toProvider: sup.provider,
        basePoint: base ? { runId: base.runId, runOrdinal: base.runOrdinal } : null,
      },
    },
    { mustAccept: true },
  );
  return { threadId: thread.threadId, fromThreadId, transferId, throughRunOrdinal: latest.ordinal };
}
