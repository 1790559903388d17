import type { EffectPayload } from '../domain/effects.js';
import type { ForkOrigin } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';
import type { ProjectionRow } from '../domain/projections.js';
import {
  claimNewThreadId,
  requireAcpAgent,
  requireAvailable,
  requireApplied,
  type Handler,
  type HandlerEnv,
} from './command-checks.js';
import { dispatchCapabilities } from './policy.js';

/**
 * A fork is a new app thread with lineage and a pending source point; no provider work
 * happens now. Its first run resolves the source (see `forkStrategy`): a native provider
 * fork at that turn when the fork's provider can fork the source's own provider thread,
 * else Baton's own record of the source up to the fork point (a portable fork). `provider`
 * (with `acpAgent` for `acp`) puts the fork on another provider, which is always portable;
 * there it starts on that provider's default model unless `model` names one.
 *
 * With `cwd` (set by the runtime to a new folder under the data dir when the command names
 * none: see fork-workspace.ts) the fork gets a workspace of its own, written from the fork
 * point's checkpoint by an effect its lane runs before anything else of the fork's; without
 * one (a Baton with no checkpoint store or no data dir) it works in its source's.
 */
export const forkThread: Handler<'thread.fork'> = (thread, c, env) => {
  if (c.source.type !== 'run')
    throw new BatonError('unsupported', `forking from a ${c.source.type} is not built yet in this version of Baton`);
  claimNewThreadId(thread, env.store);
  const source = env.store.projections.get('threads', c.sourceThreadId);
  const run = env.store.projections.get('runs', c.source.runId);
  if (!source || !run || run.threadId !== c.sourceThreadId || c.source.threadId !== c.sourceThreadId) {
    throw new BatonError('not_found', `no run ${c.source.runId} on thread ${c.sourceThreadId}`);
  }
  // Stable fork points only: a finished run (an interrupted or failed one with its checkpoint).
  const stable =
    run.status === 'completed' || ((run.status === 'interrupted' || run.status === 'failed') && run.checkpointId);
  if (!stable)
    throw new BatonError('invalid_transition', `run ${run.id} is ${run.status}: fork from a finished run`, {
      status: run.status,
    });
  const materialize = c.cwd === undefined ? null : forkPointCheckpoint(run, c.cwd, source.workspace.cwd, env);
  const moves = c.provider !== undefined && c.provider !== source.provider;
  const provider = c.provider ?? source.provider;
  const acpAgent = c.acpAgent ?? (moves ? undefined : (source.acpAgent ?? undefined));
  requireAvailable(provider, env);
  requireAcpAgent(provider, acpAgent, 'create', env);
  requireApplied(provider, c, env);
  thread.spawn('thread_supervisor', thread.threadId, {
    threadId: thread.threadId,
    title: c.title ?? `${source.title} (fork)`,
    provider,
    model: c.model ?? (moves ? null : source.model),
    runtimeMode: source.runtimeMode,
    interactionMode: source.interactionMode,
    acpAgent: acpAgent ?? null,
    cwd: c.cwd ?? source.workspace.cwd,
    parentThreadId: source.id,
    relationshipToParent: 'fork',
    rootThreadId: source.lineage.rootThreadId,
    providerThreadId: thread.current.newId('providerThread'),
    capabilities: dispatchCapabilities(env.capabilities(provider, acpAgent)),
    createdAt: thread.current.at,
    forkOrigin: {
      sourceThreadId: source.id,
      sourceRunId: run.id,
      sourceProvider: run.provider,
      sourceProviderThreadId: run.providerThreadId,
      sourceAttemptId: run.activeAttemptId,
    } satisfies ForkOrigin,
  });
  // In the fork's creation commit: its lane carries it out before its first run's effects.
  if (materialize)
    thread.current.addEffect(
      { kind: 'checkpoint.materialize', provider: null, runId: null, nodeId: null, payload: materialize },
      null,
    );
  return {
    threadId: thread.threadId,
    provider,
    cwd: c.cwd ?? source.workspace.cwd,
    forkedFrom: { threadId: source.id, runId: run.id, runOrdinal: run.ordinal },
  };
};

/** What the fork's workspace is written from: the source run's checkpoint, which must be ready (typed refusal otherwise). */
function forkPointCheckpoint(
  run: ProjectionRow<'runs'>,
  cwd: string,
  sourceCwd: string,
  env: HandlerEnv,
): EffectPayload<'checkpoint.materialize'> {
  const checkpoint = run.checkpointId ? env.store.projections.get('checkpoints', run.checkpointId) : null;
  if (!checkpoint || checkpoint.status !== 'ready' || !checkpoint.treeRef)
    throw new BatonError(
      'not_found',
      `run ${run.id} has no ready checkpoint to make the fork's workspace from (${checkpoint ? `its checkpoint is ${checkpoint.status}` : 'it has none'})`,
      { runId: run.id, checkpointId: run.checkpointId, status: checkpoint?.status ?? null },
    );
  return { checkpointId: checkpoint.id, treeRef: checkpoint.treeRef, sourceCwd, cwd };
}
