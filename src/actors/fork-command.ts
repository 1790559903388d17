import type { EffectPayload } from '../domain/effects.js';
import type { ForkedFrom, ForkOrigin } from '../domain/entities.js';
import { claimNewThreadId, requireAcpAgent, requireAvailable, requireApplied, type Handler } from './command-checks.js';
import { forkPointCheckpoint, requireSubagentFork, resolveForkPoint } from './fork-point.js';
import { dispatchCapabilities } from './policy.js';

/**
 * A fork is a new app thread with lineage and a pending source point; no provider work
 * happens now. Its source (a run, a node, a checkpoint, a provider thread) resolves to a
 * finished run of the source thread (see fork-point.ts), the fork point, recorded as a
 * pending `fork` ContextTransfer. Its first run resolves it (see `forkStrategy`): a native
 * provider fork at that turn when the fork's provider can fork the source's own provider thread,
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
  claimNewThreadId(thread, env.store);
  const point = resolveForkPoint(c, env.store);
  const { source, run } = point;
  // A checkpoint source must be ready whatever the workspace; another's only when a workspace is written from it.
  const checkpoint = c.cwd !== undefined || point.checkpoint ? forkPointCheckpoint(point, env.store) : null;
  const materialize: EffectPayload<'checkpoint.materialize'> | null =
    checkpoint && c.cwd !== undefined
      ? { checkpointId: checkpoint.id, treeRef: checkpoint.treeRef, sourceCwd: source.workspace.cwd, cwd: c.cwd }
      : null;
  const moves = c.provider !== undefined && c.provider !== source.provider;
  const provider = c.provider ?? source.provider;
  const acpAgent = c.acpAgent ?? (moves ? undefined : (source.acpAgent ?? undefined));
  requireAvailable(provider, env);
  requireAcpAgent(provider, acpAgent, 'create', env);
  requireApplied(provider, c, env);
  requireSubagentFork(point, env.capabilities(provider, acpAgent), !moves);
  const transferId = thread.current.newId('contextTransfer');
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
      // A subagent node's fork forks the child's native thread, not the run's (fork-point.ts).
      ...(point.subagent?.nativeThreadRef
        ? { sourceNativeThreadRef: point.subagent.nativeThreadRef, sourceNativeTurnRef: point.subagent.nativeTurnRef }
        : {}),
      transferId,
    } satisfies ForkOrigin,
  });
  // What the fork's provider thread is owed, pending until its first run resolves it (natively or portably).
  thread.spawn('context_transfer', transferId, {
    transferId,
    threadId: thread.threadId,
    kind: 'fork',
    sourceThreadId: source.id,
    sourceRunId: run.id,
    sourceRunOrdinal: run.ordinal,
    fromProvider: run.provider,
    toProvider: provider,
  });
  const forkedFrom: ForkedFrom = {
    threadId: source.id,
    runId: run.id,
    runOrdinal: run.ordinal,
    nodeId: point.nodeId,
    checkpointId: point.checkpoint?.id ?? null,
  };
  // The fork's snapshot shows the source's history up to here, inherited (see streams.ts).
  thread.current.addEvent({ type: 'thread.forked', payload: { threadId: thread.threadId, forkedFrom } });
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
    transferId,
    forkedFrom: { threadId: source.id, runId: run.id, runOrdinal: run.ordinal },
  };
};
