import type { ProviderCapabilities } from '../domain/capabilities.js';
import type { CommandOf } from '../domain/commands.js';
import { BatonError } from '../domain/errors.js';
import type { NodeId } from '../domain/ids.js';
import type { ProjectionRow } from '../domain/projections.js';
import type { Store } from '../persistence/store.js';

type Thread = ProjectionRow<'threads'>;
type Run = ProjectionRow<'runs'>;
type Checkpoint = ProjectionRow<'checkpoints'>;
type ForkCommand = CommandOf<'thread.fork'>;
type Source = ForkCommand['source'];

/**
 * Where a fork is taken from, whatever its source names: the source thread, the finished
 * run whose history the fork inherits (up to and including it), and what the fork's
 * workspace is written from (a checkpoint source's own checkpoint, else the run's).
 */
export interface StableForkPoint {
  source: Thread;
  run: Run & { ordinal: number };
  /** The checkpoint a `checkpoint` source names; null for the others (the run's own is used). */
  checkpoint: Checkpoint | null;
  nodeId: NodeId | null;
  /** A subagent node's source: the child's own native thread at the node's turn of it. */
  subagent: SubagentSource | null;
}

export interface SubagentSource {
  nodeId: NodeId;
  /**
   * The child's native thread (its provider thread's bound ref; for older data its node's
   * `detail.nativeThreadId`), null when the provider named none.
   */
  nativeThreadRef: string | null;
  /**
   * The child's native turn this node ran (`detail.nativeTurnId`), if one was named: a child
   * asked again (a follow-up task) is a later node, so a fork from an earlier one leaves the
   * later turns out (what a `rollback.node` cannot take back from the child's thread).
   */
  nativeTurnRef: string | null;
}

const notFound = (what: string, threadId: string) => new BatonError('not_found', `no ${what} on thread ${threadId}`);

/**
 * Resolves a `thread.fork` source to its point, refusing (typed, nothing changed) an unknown
 * id or one of another thread (`not_found`), a point that is not stable (a run still going,
 * or one rolled back: `invalid_transition`) and what is not built yet (`unsupported`).
 */
export function resolveForkPoint(c: ForkCommand, store: Store): StableForkPoint {
  const threadId = c.sourceThreadId;
  const source = store.projections.get('threads', threadId);
  if (!source) throw new BatonError('not_found', `no thread ${threadId}`);
  if ('threadId' in c.source && c.source.threadId !== threadId)
    throw new BatonError('not_found', `the source names thread ${c.source.threadId}, not ${threadId}`);
  const { run, checkpoint = null, nodeId = null, subagent = null } = pointOf(c.source, threadId, store);
  requireStable(run);
  return { source, run, checkpoint, nodeId, subagent };
}

function pointOf(
  s: Source,
  threadId: string,
  store: Store,
): { run: Run; checkpoint?: Checkpoint; nodeId?: NodeId; subagent?: SubagentSource | null } {
  const p = store.projections;
  const runOf = (runId: string | null, what: string) => {
    const run = runId ? p.get('runs', runId) : null;
    if (!run || run.threadId !== threadId) throw notFound(what, threadId);
    return run;
  };
  switch (s.type) {
    case 'run':
      return { run: runOf(s.runId, `run ${s.runId}`) };
    case 'node': {
      const node = p.get('graph_nodes', s.nodeId);
      const run = runOf(node?.runId ?? null, `node ${s.nodeId}`);
      return { run, nodeId: s.nodeId, subagent: subagentSource(s.nodeId, store) };
    }
    case 'checkpoint': {
      const checkpoint = p.get('checkpoints', s.checkpointId);
      if (!checkpoint || checkpoint.threadId !== threadId) throw notFound(`checkpoint ${s.checkpointId}`, threadId);
      if (checkpoint.scopeKind !== 'root_run')
        throw new BatonError(
          'unsupported',
          `checkpoint ${checkpoint.id} is a ${checkpoint.scopeKind} checkpoint: fork from a run's`,
        );
      return { run: runOfCheckpoint(checkpoint, store), checkpoint };
    }
    case 'provider_thread':
      return { run: runOnProviderThread(s.providerThreadId, s.providerTurnId ?? null, threadId, store) };
  }
}

/** The run a root checkpoint ends; a baseline (no run of its own) stands for the run at its ordinal. */
function runOfCheckpoint(checkpoint: Checkpoint, store: Store): Run {
  if (checkpoint.runId) {
    const run = store.projections.get('runs', checkpoint.runId);
    if (!run) throw notFound(`run ${checkpoint.runId} of checkpoint ${checkpoint.id}`, checkpoint.threadId);
    return run;
  }
  const run = store.projections
    .list('runs', checkpoint.threadId)
    .filter((r) => r.ordinal === checkpoint.runOrdinal && r.status !== 'rolled_back')
    .at(-1);
  if (!run)
    throw new BatonError(
      'unsupported',
      `checkpoint ${checkpoint.id} is the workspace before the thread's first run: there is no history to fork`,
      { checkpointId: checkpoint.id, runOrdinal: checkpoint.runOrdinal },
    );
  return run;
}

const detailRef = (detail: Record<string, unknown> | null | undefined, key: string): string | null =>
  typeof detail?.[key] === 'string' ? detail[key] : null;

/** The native ref bound to a subagent's own provider thread (the newest), if it has one. */
const childThreadRef = (node: ProjectionRow<'graph_nodes'>, store: Store): string | null =>
  node.providerThreadId
    ? (store.bindings
        .forApp(node.providerThreadId)
        .filter((b) => b.entityKind === 'provider_thread')
        .at(-1)?.nativeRef ?? null)
    : null;

/**
 * A subagent node is a point of its own child's thread (whether it can be forked is the
 * fork's provider's: `requireSubagentFork`), once the child has ended; a node inside a
 * subagent (mid-turn in the child) is not forkable. Null for a node of the root scope.
 */
function subagentSource(nodeId: NodeId, store: Store): SubagentSource | null {
  const node = store.projections.get('graph_nodes', nodeId);
  for (let id = node?.parentNodeId ?? null, depth = 0; id && depth < 1000; depth++) {
    const parent: ProjectionRow<'graph_nodes'> | null = store.projections.get('graph_nodes', id);
    if (parent?.kind === 'subagent')
      throw new BatonError(
        'unsupported',
        `node ${nodeId} is inside subagent ${parent.id}: fork from the subagent's node`,
      );
    id = parent?.parentNodeId ?? null;
  }
  if (node?.kind !== 'subagent') return null;
  if (node.status === 'pending' || node.status === 'running' || node.status === 'waiting')
    throw new BatonError('invalid_transition', `subagent ${nodeId} is ${node.status}: fork from a finished one`, {
      nodeId,
      status: node.status,
    });
  return {
    nodeId,
    nativeThreadRef: childThreadRef(node, store) ?? detailRef(node.detail, 'nativeThreadId'),
    nativeTurnRef: detailRef(node.detail, 'nativeTurnId'),
  };
}

/**
 * A fork from a subagent forks the child's own native thread, so only a provider that
 * declares `threads.canForkFromSubagentThread` takes one, on its own (a portable fork would
 * tell the parent's runs, not the child's), of a child whose native thread was named.
 */
export function requireSubagentFork(point: StableForkPoint, caps: ProviderCapabilities, sameProvider: boolean): void {
  const sub = point.subagent;
  if (!sub) return;
  const why = !caps.threads.canForkFromSubagentThread
    ? 'the provider cannot fork a subagent thread'
    : !sameProvider
      ? "a subagent's thread forks only on its own provider"
      : !sub.nativeThreadRef
        ? 'the provider never named its native thread'
        : null;
  if (why) throw new BatonError('unsupported', `node ${sub.nodeId} is a subagent: ${why}`, { nodeId: sub.nodeId });
}

/**
 * A provider thread's point: the run whose attempt ran the native turn `turnId` (its binding,
 * scoped to the provider thread), else the last finished run on it.
 */
function runOnProviderThread(providerThreadId: string, turnId: string | null, threadId: string, store: Store): Run {
  const runs = store.projections.list('runs', threadId).filter((r) => r.providerThreadId === providerThreadId);
  if (runs.length === 0) throw notFound(`run on provider thread ${providerThreadId}`, threadId);
  if (turnId === null) {
    const last = runs.filter(isStable).at(-1);
    if (!last) requireStable(runs.at(-1)!);
    return last!;
  }
  const scope = `provider_thread:${providerThreadId}`;
  const attemptIds = new Set(
    [...new Set(runs.map((r) => r.provider))]
      .map((provider) => store.bindings.resolve(provider, scope, turnId))
      .filter((b) => b?.entityKind === 'run_attempt')
      .map((b) => b!.appId),
  );
  const run = runs.find((r) => r.attempts.some((a) => attemptIds.has(a.id)));
  if (!run) throw notFound(`native turn ${turnId} on provider thread ${providerThreadId}`, threadId);
  return run;
}

/** Stable fork points only: a finished run (an interrupted or failed one with its checkpoint). */
function isStable(run: Run): run is Run & { ordinal: number } {
  const ended =
    run.status === 'completed' || ((run.status === 'interrupted' || run.status === 'failed') && !!run.checkpointId);
  return ended && run.ordinal !== null;
}

function requireStable(run: Run): asserts run is Run & { ordinal: number } {
  if (!isStable(run))
    throw new BatonError('invalid_transition', `run ${run.id} is ${run.status}: fork from a finished run`, {
      runId: run.id,
      status: run.status,
    });
}

/** What the fork's workspace is written from: the point's checkpoint, which must be ready (typed refusal otherwise). */
export function forkPointCheckpoint(point: StableForkPoint, store: Store): Checkpoint & { treeRef: string } {
  const { run } = point;
  const checkpoint =
    point.checkpoint ?? (run.checkpointId ? store.projections.get('checkpoints', run.checkpointId) : null);
  if (!checkpoint || checkpoint.status !== 'ready' || !checkpoint.treeRef)
    throw new BatonError(
      'not_found',
      `${point.checkpoint ? `checkpoint ${point.checkpoint.id}` : `run ${run.id}`} has no ready checkpoint to make the fork's workspace from (${checkpoint ? `its checkpoint is ${checkpoint.status}` : 'it has none'})`,
      { runId: run.id, checkpointId: checkpoint?.id ?? null, status: checkpoint?.status ?? null },
    );
  return { ...checkpoint, treeRef: checkpoint.treeRef };
}
