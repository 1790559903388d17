import type { CommandOf } from '../domain/commands.js';
import { BatonError } from '../domain/errors.js';
import type { CheckpointId, ContextHandoffId, ContextTransferId } from '../domain/ids.js';
import type { CheckpointStore } from '../checkpoints/checkpoint-store.js';
import type { Store } from '../persistence/store.js';
import { rootCheckpointAt } from './root-checkpoints.js';
import type { EntityState, StepContext } from './step-context.js';
import { childConversationAfter, warnChildKept, type ChildConversation } from './subagent-rollback.js';

/**
 * Rollbacks restore files first (asynchronous git work, inside the thread's mailbox turn),
 * then record what happened in one step: later runs `rolled_back`, later checkpoints
 * `stale`, and the provider's reconciliation left in the outbox by the supervisor.
 */
interface Restored {
  checkpointId: CheckpointId | null;
  changedPaths: string[];
  parentOverlap: string[];
  stale: CheckpointId[];
  /** Handoffs and transfers a rollback to run N takes back (see `supersededBy`). */
  superseded?: { handoffIds: ContextHandoffId[]; transferIds: ContextTransferId[] };
  /** A node rollback: what became of the child's own conversation (see subagent-rollback.ts). */
  child?: ChildConversation;
}

/**
 * What a rollback to run `ordinal` supersedes: each handoff of this thread that told a
 * provider thread about a later run, or was carried by one, and the transfers they
 * materialized. The provider threads they went to are rolled back or replaced with it.
 */
function supersededBy(store: Store, threadId: string, ordinal: number): Restored['superseded'] {
  const later = new Set(
    store.projections
      .list('runs', threadId)
      .filter((r) => (r.ordinal ?? 0) > ordinal)
      .map((r) => r.id),
  );
  const handoffs = store.projections
    .list('context_handoffs', threadId)
    .filter(
      (h) =>
        h.status === 'delivered' &&
        (later.has(h.runId) || (h.fromThreadId === threadId && h.coveredRunOrdinals.some((o) => o > ordinal))),
    );
  const handoffIds = new Set(handoffs.map((h) => h.id));
  const transferIds = store.projections
    .list('context_transfers', threadId)
    .filter(
      (t) =>
        (t.status === 'consumed' || t.status === 'materialized') &&
        ((t.handoffId !== null && handoffIds.has(t.handoffId)) ||
          (t.consumedByRunId !== null && later.has(t.consumedByRunId))),
    )
    .map((t) => t.id);
  return { handoffIds: [...handoffIds], transferIds };
}

/** Checks a workspace before any git work there (see Runtime.checkWorkspace). */
export type WorkspaceCheck = (cwd: string) => Promise<void>;

/** The thread's workspace, checked again: it may have been replaced (by a link to `/`, say) since the thread was made. */
async function restorableCwd(thread: StepContext, check: WorkspaceCheck): Promise<string> {
  const cwd = supervisor(thread).context.cwd;
  await check(cwd).catch((error: unknown) => {
    throw new BatonError(
      'conflict',
      `thread ${thread.threadId}'s workspace cannot be restored: ${error instanceof Error ? error.message : String(error)}`,
      { cwd },
    );
  });
  return cwd;
}

function supervisor(thread: StepContext): EntityState<'thread_supervisor'> {
  const state = thread.state({ kind: 'thread_supervisor', id: thread.threadId });
  if (!state) throw new BatonError('not_found', `no thread ${thread.threadId}`);
  return state;
}

export async function prepareRollbackToRun(
  thread: StepContext,
  c: CommandOf<'rollback.toRun'>,
  store: Store,
  checkpoints: CheckpointStore | null,
  check: WorkspaceCheck,
): Promise<Restored> {
  const sup = supervisor(thread);
  if (!sup.can({ type: 'ROLLBACK', runOrdinal: c.runOrdinal })) {
    throw new BatonError(
      'invalid_transition',
      `thread ${thread.threadId} cannot roll back to run ${c.runOrdinal} now (a run is active, or there is no such run)`,
      { state: sup.value },
    );
  }
  const stale = store.projections
    .list('checkpoints', thread.threadId)
    .filter((k) => k.status !== 'stale' && (k.runOrdinal ?? 0) > c.runOrdinal)
    .map((k) => k.id);
  const superseded = supersededBy(store, thread.threadId, c.runOrdinal);
  if (!checkpoints) return { checkpointId: null, changedPaths: [], parentOverlap: [], stale, superseded };
  const target = rootCheckpointAt(store, thread.threadId, c.runOrdinal);
  if (!target || target.status !== 'ready' || !target.treeRef) {
    throw new BatonError(
      'not_found',
      `run ${c.runOrdinal} of thread ${thread.threadId} has no ready checkpoint to restore`,
      { checkpoint: target },
    );
  }
  const { changed } = await checkpoints.restore(await restorableCwd(thread, check), target.treeRef);
  return { checkpointId: target.id, changedPaths: changed, parentOverlap: [], stale, superseded };
}

export function commitRollbackToRun(
  thread: StepContext,
  c: CommandOf<'rollback.toRun'>,
  r: Restored,
): Record<string, unknown> {
  // A provider that cannot roll back has diverged: the supervisor replaces its thread with this one.
  const replacementProviderThreadId = thread.current.newId('providerThread');
  thread.deliver(
    { kind: 'thread_supervisor', id: thread.threadId },
    { type: 'ROLLBACK', runOrdinal: c.runOrdinal, replacementProviderThreadId },
    { mustAccept: true },
  );
  const reason = `rolled back to run ${c.runOrdinal}`;
  for (const id of r.superseded?.handoffIds ?? [])
    thread.deliver({ kind: 'context_handoff', id }, { type: 'SUPERSEDE', reason });
  for (const id of r.superseded?.transferIds ?? [])
    thread.deliver({ kind: 'context_transfer', id }, { type: 'SUPERSEDE', reason });
  recordRestore(thread, r);
  return {
    threadId: thread.threadId,
    runOrdinal: c.runOrdinal,
    checkpointId: r.checkpointId,
    changedPaths: r.changedPaths,
    staleCheckpointIds: r.stale,
  };
}

export async function prepareRollbackNode(
  thread: StepContext,
  c: CommandOf<'rollback.node'>,
  store: Store,
  checkpoints: CheckpointStore | null,
  check: WorkspaceCheck,
): Promise<Restored> {
  if (!checkpoints) throw new BatonError('unsupported', 'no checkpoint store is configured');
  const checkpoint = store.projections.get('checkpoints', c.checkpointId);
  if (
    !checkpoint ||
    checkpoint.threadId !== thread.threadId ||
    checkpoint.nodeId !== c.nodeId ||
    checkpoint.scopeKind === 'root_run'
  ) {
    throw new BatonError('not_found', `no checkpoint ${c.checkpointId} of node ${c.nodeId}`);
  }
  if (checkpoint.status !== 'ready' || !checkpoint.treeRef)
    throw new BatonError('conflict', `checkpoint ${c.checkpointId} is ${checkpoint.status}`);
  const cwd = await restorableCwd(thread, check);
  const { changed, previousTree } = await checkpoints.restore(cwd, checkpoint.treeRef);
  // What the parent run changed: from its baseline to its own checkpoint, or to now while it runs.
  const ordinal = checkpoint.runOrdinal ?? 0;
  const baseline = rootCheckpointAt(store, thread.threadId, ordinal - 1);
  const runCheckpoint = rootCheckpointAt(store, thread.threadId, ordinal);
  const parentPaths = baseline?.treeRef
    ? await checkpoints.changedPaths(cwd, baseline.treeRef, runCheckpoint?.treeRef ?? previousTree)
    : [];
  const all = store.projections.list('checkpoints', thread.threadId);
  const later = all
    .slice(all.findIndex((k) => k.id === checkpoint.id) + 1)
    .filter((k) => k.runId === checkpoint.runId && k.scopeKind !== 'root_run' && k.status !== 'stale');
  return {
    checkpointId: checkpoint.id,
    changedPaths: changed,
    parentOverlap: changed.filter((p) => parentPaths.includes(p)),
    stale: later.map((k) => k.id),
    child: childConversationAfter(store, thread.threadId, c.nodeId),
  };
}

export function commitRollbackNode(
  thread: StepContext,
  c: CommandOf<'rollback.node'>,
  r: Restored,
): Record<string, unknown> {
  thread.require({ kind: 'execution_node', id: c.nodeId });
  recordRestore(thread, r);
  const child = r.child ?? { conversation: null, laterChildNodeIds: [] };
  warnChildKept(thread, c.nodeId, child);
  return {
    nodeId: c.nodeId,
    checkpointId: c.checkpointId,
    changedPaths: r.changedPaths,
    parentFilesChanged: r.parentOverlap.length > 0,
    parentOverlap: r.parentOverlap,
    ...child,
  };
}

function recordRestore(thread: StepContext, r: Restored): void {
  thread.current.addEvent({
    type: 'checkpoint.restored',
    payload: {
      threadId: thread.threadId,
      checkpointId: r.checkpointId,
      changedPaths: r.changedPaths,
      parentOverlap: r.parentOverlap,
    },
  });
  if (r.stale.length)
    thread.current.addEvent({
      type: 'checkpoint.stale',
      payload: { threadId: thread.threadId, checkpointIds: r.stale },
    });
}
