import { BatonError } from '../domain/errors.js';
import type { ThreadId } from '../domain/ids.js';
import type { ProjectionRow } from '../domain/projections.js';
import type { InteractionMode, ProviderKind, RuntimeMode } from '../domain/statuses.js';
import type { Store } from '../persistence/store.js';
import type { StepContext } from './step-context.js';

/**
 * Delegated threads: a thread created for another (`thread.create { parentThreadId }`, what the
 * orchestrator MCP server's delegate_task sends) is its subagent. It never runs with a mode
 * broader than its parent's, and it is told what it owes its parent by a `subagent_spawn`
 * context transfer recorded with it.
 */

type Thread = ProjectionRow<'threads'>;

/** How much each mode lets an agent do: a child may have its parent's, or less. */
const runtimeModeBreadth: Record<RuntimeMode, number> = { read_only: 0, workspace_write: 1, full_access: 2 };
/** Plan mode only plans: it is narrower than default, which acts. */
const interactionModeBreadth: Record<InteractionMode, number> = { plan: 0, default: 1 };

export interface Modes {
  runtimeMode: RuntimeMode;
  interactionMode: InteractionMode;
}

/**
 * Refuses (typed `invalid_command`, `details.escalation`) a child mode broader than the
 * ceiling's: a delegating thread (or the session delegating for it) cannot hand out more
 * than it has.
 */
export function requireNoBroader(asked: Partial<Modes>, ceiling: Modes, whose: string): void {
  const broader: string[] = [];
  if (asked.runtimeMode && runtimeModeBreadth[asked.runtimeMode] > runtimeModeBreadth[ceiling.runtimeMode])
    broader.push(`runtimeMode ${asked.runtimeMode} is broader than ${ceiling.runtimeMode}`);
  if (
    asked.interactionMode &&
    interactionModeBreadth[asked.interactionMode] > interactionModeBreadth[ceiling.interactionMode]
  )
    broader.push(`interactionMode ${asked.interactionMode} is broader than ${ceiling.interactionMode}`);
  if (broader.length)
    throw new BatonError(
      'invalid_command',
      `a delegated thread cannot have a broader mode than ${whose}: ${broader.join('; ')}`,
      { escalation: { asked, allowed: ceiling } },
    );
}

/** The narrower of two sets of modes, mode by mode: what a session may hand out when its thread's modes changed since it started. */
export function narrowest(a: Modes, b: Modes): Modes {
  return {
    runtimeMode: runtimeModeBreadth[a.runtimeMode] <= runtimeModeBreadth[b.runtimeMode] ? a.runtimeMode : b.runtimeMode,
    interactionMode:
      interactionModeBreadth[a.interactionMode] <= interactionModeBreadth[b.interactionMode]
        ? a.interactionMode
        : b.interactionMode,
  };
}

/** The thread a new thread is delegated by: it must exist (and not be deleted), and the modes asked must be within its own. */
export function delegatingParent(parentThreadId: ThreadId, asked: Partial<Modes>, store: Store): Thread {
  const parent = store.projections.get('threads', parentThreadId);
  if (!parent || parent.status === 'deleted') throw new BatonError('not_found', `no thread ${parentThreadId}`);
  requireNoBroader(asked, parent, `its parent thread ${parentThreadId}`);
  return parent;
}

/** A delegated thread's lineage: a subagent of its parent, in its parent's tree. */
export function delegatedLineage(threadId: ThreadId, parent: Thread | null) {
  return {
    parentThreadId: parent?.id ?? null,
    relationshipToParent: parent ? ('subagent' as const) : null,
    rootThreadId: parent?.lineage.rootThreadId ?? threadId,
  };
}

/**
 * The `subagent_spawn` transfer, recorded with the child in its creation commit: what it is
 * owed comes from its parent's active run (its source point). Its task travels as its own
 * first message, so no handoff text is needed: it is resolved at once.
 */
export function recordSubagentSpawn(thread: StepContext, parent: Thread, provider: ProviderKind, store: Store): void {
  const transferId = thread.current.newId('contextTransfer');
  const run = parent.activeRunId ? store.projections.get('runs', parent.activeRunId) : null;
  thread.spawn('context_transfer', transferId, {
    transferId,
    threadId: thread.threadId,
    kind: 'subagent_spawn',
    sourceThreadId: parent.id,
    sourceRunId: run?.id ?? null,
    sourceRunOrdinal: run?.ordinal ?? null,
    fromProvider: parent.provider,
    toProvider: provider,
  });
  thread.deliver({ kind: 'context_transfer', id: transferId }, { type: 'RESOLVED_NATIVE' }, { mustAccept: true });
}

/** The threads delegated by `threadId` (its subagent children), oldest first. */
export function delegatedChildren(store: Store, threadId: string): Thread[] {
  return store.projections
    .list('threads')
    .filter(
      (t) =>
        t.lineage.parentThreadId === threadId &&
        t.lineage.relationshipToParent === 'subagent' &&
        t.status !== 'deleted',
    )
    .sort((a, b) => a.createdAt - b.createdAt);
}
