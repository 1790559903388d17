import { BatonError } from '../domain/errors.js';
import type { ProjectionRow } from '../domain/projections.js';
import { runTerminalStatuses } from '../domain/statuses.js';
import type { Store } from '../persistence/store.js';
import type { McpScope } from './credentials.js';

// What the MCP tools show of threads, runs and items: the projections' rows cut down to what
// an agent acts on, so a tool result stays small enough to read.

type Thread = ProjectionRow<'threads'>;
type Run = ProjectionRow<'runs'>;
type Item = ProjectionRow<'turn_items'>;

/** The thread, or a typed `not_found` (a deleted thread is gone for the tools too). */
export function requireThread(store: Store, threadId: string): Thread {
  const thread = store.projections.get('threads', threadId);
  if (!thread || thread.status === 'deleted') throw new BatonError('not_found', `no thread ${threadId}`);
  return thread;
}

/**
 * A thread the caller may see: any, with Baton's own token; with a session's credential only
 * the threads its own thread delegated (its tasks). Any other is `not_found`, as if absent.
 */
export function requireVisibleThread(store: Store, scope: McpScope, threadId: string): Thread {
  const thread = requireThread(store, threadId);
  if (scope.kind === 'full') return thread;
  const { parentThreadId, relationshipToParent } = thread.lineage;
  if (parentThreadId === scope.threadId && relationshipToParent === 'subagent') return thread;
  throw new BatonError('not_found', `no thread ${threadId} among the tasks of thread ${scope.threadId}`);
}

/** Only Baton's own token sees the tool (a session's credential sees the delegation tools and its tasks). */
export const ownerOnly = (scope: McpScope): boolean => scope.kind === 'full';

/** The run, if it is one of this thread's; else a typed `not_found`. */
export function requireRunOf(store: Store, threadId: string, runId: string): Run {
  const run = store.projections.get('runs', runId);
  if (!run || run.threadId !== threadId) throw new BatonError('not_found', `no run ${runId} on thread ${threadId}`);
  return run;
}

export const isTerminal = (status: string): boolean => (runTerminalStatuses as readonly string[]).includes(status);

export function threadSummary(t: Thread) {
  return {
    threadId: t.id,
    title: t.title,
    status: t.status,
    provider: t.provider,
    model: t.model,
    acpAgent: t.acpAgent,
    runtimeMode: t.runtimeMode,
    interactionMode: t.interactionMode,
    cwd: t.workspace.cwd,
    parentThreadId: t.lineage.parentThreadId,
    relationshipToParent: t.lineage.relationshipToParent,
    runCount: t.runCount,
    activeRunId: t.activeRunId,
    activeRunStatus: t.activeRunStatus,
    queuedRunCount: t.queuedRunCount,
    queueHeld: t.queueHeld,
    pendingRequestCount: t.pendingRequestCount,
    updatedAt: t.updatedAt,
  };
}

export function runSummary(r: Run) {
  return {
    runId: r.id,
    ordinal: r.ordinal,
    status: r.status,
    provider: r.provider,
    model: r.model,
    queuePosition: r.queuePosition,
    error: r.error,
    // A run Baton queued itself (a delegated task's wake-up) says so.
    origin: r.origin ?? null,
  };
}

/** An item's text, cut to `maxChars` (the cut says so). */
export function itemView(i: Item, maxChars: number) {
  const cut = i.text.length > maxChars;
  return {
    itemId: i.id,
    runId: i.runId,
    kind: i.kind,
    status: i.status,
    text: cut ? i.text.slice(0, maxChars) : i.text,
    ...(cut ? { truncated: { chars: i.text.length } } : {}),
  };
}

/** The run's last assistant message as it stands now (null before the agent says anything). */
export function lastAssistantMessage(store: Store, run: Run): string | null {
  const said = store.projections
    .list('turn_items', run.threadId)
    .filter((i) => i.runId === run.id && i.kind === 'assistant_message');
  return said.at(-1)?.text ?? null;
}

export function pendingRequests(store: Store, threadId: string) {
  return store.projections
    .list('requests', threadId)
    .filter((r) => r.status === 'pending')
    .map((r) => ({ requestId: r.id, runId: r.runId, kind: r.kind, prompt: r.prompt }));
}
