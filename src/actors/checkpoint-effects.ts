import { access } from 'node:fs/promises';
import type { Checkpoint } from '../domain/entities.js';
import { effectPayloads, type Effect } from '../domain/effects.js';
import { idOf } from '../domain/ids.js';
import { RunStatus } from '../domain/statuses.js';
import type { CheckpointStore, Capture } from '../checkpoints/checkpoint-store.js';
import type { EffectHandler, EffectWorkerPort } from './effect-handler.js';
import { rootCheckpointAt } from './root-checkpoints.js';

type Fields = Omit<Checkpoint, 'id' | 'threadId'>;

/** Records a checkpoint in the effect's own settle step; tells the run when it is its barrier's. */
function record(worker: EffectWorkerPort, effect: Effect, fields: Fields, notifyRun: boolean) {
  return worker.settle(effect, 'completed', (thread) => {
    const id = thread.current.newId('checkpoint');
    thread.current.addEvent({
      type: 'checkpoint.recorded',
      payload: { checkpoint: { id, threadId: effect.threadId, ...fields } },
    });
    if (notifyRun && effect.runId) {
      const status = fields.status === 'stale' ? 'error' : fields.status;
      thread.deliver({ kind: 'run', id: effect.runId }, { type: 'CHECKPOINT_RECORDED', checkpointId: id, status });
    }
    return {};
  });
}

/** The workspace is checked again: it may have been replaced (by a link to `/`, say) since the thread was made. */
async function tryCapture(
  worker: EffectWorkerPort,
  store: CheckpointStore,
  cwd: string,
  ref: string,
  base: string | null,
): Promise<{ capture: Capture } | { error: string }> {
  try {
    await worker.runtime.checkWorkspace(cwd);
    return { capture: await store.capture(cwd, ref, base) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function fromCapture(
  result: { capture: Capture } | { error: string },
): Pick<Fields, 'status' | 'treeRef' | 'diff' | 'skippedFiles' | 'reason'> {
  if ('error' in result)
    return { status: 'error', treeRef: null, diff: null, skippedFiles: [], reason: `capture failed: ${result.error}` };
  const { capture } = result;
  return {
    status: 'ready',
    treeRef: capture.commit,
    diff: { files: capture.diff.files, additions: capture.diff.additions, deletions: capture.diff.deletions },
    skippedFiles: capture.skipped,
    reason: capture.skipped.length ? `${capture.skipped.length} file(s) over the size limit were not captured` : null,
  };
}

/**
 * The checkpoint effects. With a store, runs capture real checkpoints; without one (Baton
 * configured with no data dir for them), the barrier's step is recorded `missing` with
 * its reason, so a run is never held open by it.
 */
export function checkpointHandlers(
  checkpoints: CheckpointStore | null,
): Record<'checkpoint.baseline' | 'checkpoint.capture' | 'checkpoint.materialize', EffectHandler> {
  const cwdOf = (worker: EffectWorkerPort, threadId: string) =>
    worker.runtime.store.projections.get('threads', threadId)?.workspace.cwd ?? null;
  const scopeOf = (threadId: string, runId: string | null, nodeId: string | null) =>
    idOf('checkpointScope', nodeId ? `cscope_${nodeId}` : runId ? `cscope_${runId}` : `cscope_${threadId}_base`);

  const baseline: EffectHandler = async (effect, worker) => {
    const { ordinal } = effectPayloads['checkpoint.baseline'].parse(effect.payload);
    const cwd = cwdOf(worker, effect.threadId);
    if (!checkpoints || !cwd || rootCheckpointAt(worker.runtime.store, effect.threadId, ordinal)) {
      await worker.settle(effect, 'completed', () => ({}));
      return;
    }
    const base =
      ordinal > 0 ? (rootCheckpointAt(worker.runtime.store, effect.threadId, ordinal - 1)?.treeRef ?? null) : null;
    const result = await tryCapture(
      worker,
      checkpoints,
      cwd,
      `${effect.threadId}/baseline-${ordinal}-${effect.id}`,
      base,
    );
    await record(
      worker,
      effect,
      {
        scopeId: scopeOf(effect.threadId, null, null),
        scopeKind: 'root_run',
        runId: null,
        nodeId: null,
        runOrdinal: ordinal,
        runStatus: null,
        ...fromCapture(result),
      },
      false,
    );
  };

  const capture: EffectHandler = async (effect, worker) => {
    const store = worker.runtime.store;
    const run = effect.runId ? store.projections.get('runs', effect.runId) : null;
    const ordinal = run?.ordinal ?? null;
    const child = effect.payload['scope'] === 'subagent';
    const status = RunStatus.safeParse(effect.payload['runStatus']);
    const runStatus = child || !status.success ? null : status.data;
    const scope = child
      ? {
          scopeId: scopeOf(effect.threadId, effect.runId, effect.nodeId),
          scopeKind: 'subagent' as const,
          nodeId: effect.nodeId,
        }
      : { scopeId: scopeOf(effect.threadId, effect.runId, null), scopeKind: 'root_run' as const, nodeId: null };
    const common = { ...scope, runId: effect.runId, runOrdinal: ordinal, runStatus };
    const cwd = cwdOf(worker, effect.threadId);
    if (!checkpoints || !cwd) {
      await record(
        worker,
        effect,
        {
          ...common,
          status: 'missing',
          treeRef: null,
          diff: null,
          skippedFiles: [],
          reason: 'no checkpoint store is configured',
        },
        !child,
      );
      return;
    }
    // A run diffs against checkpoint N-1; a child scope against the newest capture inside its run.
    const inRun = store.projections
      .list('checkpoints', effect.threadId)
      .filter((c) => c.runId === effect.runId && c.status === 'ready');
    const previous = ordinal !== null ? rootCheckpointAt(store, effect.threadId, ordinal - 1) : null;
    const base = (child ? inRun.at(-1)?.treeRef : null) ?? previous?.treeRef ?? null;
    const result = await tryCapture(worker, checkpoints, cwd, `${effect.threadId}/${effect.id}`, base);
    await record(worker, effect, { ...common, ...fromCapture(result) }, !child);
  };

  /**
   * A fork's own workspace, queued with the fork: its lane runs it before the fork's first
   * run's baseline and turn. It never throws (a thrown handler would let later effects of the
   * lane run before it is tried again); a failure is settled failed, and a workspace that
   * did not exist yet is then still absent: the fork's runs fail on it rather than work in a
   * half-made one.
   */
  const materialize: EffectHandler = async (effect, worker) => {
    const { treeRef, sourceCwd, cwd } = effectPayloads['checkpoint.materialize'].parse(effect.payload);
    try {
      if (!checkpoints) throw new Error('no checkpoint store is configured');
      // A folder that is there is checked again: it may have been replaced (by a link to `/`, say) since the fork.
      const there = await access(cwd).then(
        () => true,
        () => false,
      );
      if (there) await worker.runtime.checkWorkspace(cwd);
      await checkpoints.materialize(sourceCwd, treeRef, cwd);
    } catch (error) {
      const message = `the fork's workspace could not be made: ${error instanceof Error ? error.message : String(error)}`;
      worker.runtime.logger.warn({ threadId: effect.threadId, cwd }, message);
      await worker.settle(effect, 'failed', () => ({}), message);
      return;
    }
    await worker.settle(effect, 'completed', () => ({}));
  };

  return { 'checkpoint.baseline': baseline, 'checkpoint.capture': capture, 'checkpoint.materialize': materialize };
}
