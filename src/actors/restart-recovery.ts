import { ThreadId } from '../domain/ids.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { Store } from '../persistence/store.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { CapabilitySource } from './policy.js';
import type { StepContext } from './step-context.js';
import type { StepOutcome } from './step-outcome.js';

/** What recovery reads and runs on: the runtime's store, providers and policy, and a step on a thread. */
export interface RestartRecoveryPorts {
  readonly store: Store;
  readonly providers: Pick<ProviderRegistry, 'get'>;
  readonly capabilities: CapabilitySource;
  readonly defaultProvider: ProviderKind;
  step<T extends Record<string, unknown>>(threadId: ThreadId, work: (ctx: StepContext) => T): Promise<StepOutcome<T>>;
}

/**
 * After a restart no provider process survives: every request still waiting on a live
 * callback (or with an answer not yet delivered) ends cancelled, its callback recorded
 * not_resumable (unless its provider declares that pending requests survive restarts),
 * every live session is stopped, and a run that was active ends interrupted by policy
 * (its next message resumes the provider thread) in the same step that cancels its
 * waiting provider effects, so no ghost turn reaches the provider. Only the threads
 * concerned are hydrated; returns how many requests were marked.
 */
export async function recoverAfterRestart(ports: RestartRecoveryPorts): Promise<number> {
  const stale = ports.store.projections
    .list('requests')
    .filter((r) => (r.status === 'pending' || r.status === 'answering') && r.responseCapability.type === 'live');
  const sessions = ports.store.projections
    .list('sessions')
    .filter((s) => !['stopped', 'error'].includes(s.status) && s.threadId);
  // A run that was active when Baton stopped lost its provider process with it.
  const active = ports.store.projections
    .list('threads')
    .filter((t) => t.activeRunId && ['running', 'waiting', 'starting'].includes(t.activeRunStatus ?? ''));
  // Subagents still open (a background one outlives its run) died with their provider process too.
  const withOpenSubagents = ports.store.projections.threadsWhere('graph_nodes', {
    kind: ['subagent'],
    status: ['pending', 'running', 'waiting'],
  });
  const threads = new Set<ThreadId>([
    ...stale.map((r) => r.threadId),
    ...sessions.flatMap((s) => (s.threadId ? [s.threadId] : [])),
    ...active.map((t) => t.id),
    ...withOpenSubagents.map((id) => ThreadId.parse(id)),
  ]);
  let marked = 0;
  for (const threadId of threads) {
    await ports.step(threadId, (thread) => {
      for (const r of stale.filter((r) => r.threadId === threadId)) {
        const sup = thread.context({ kind: 'thread_supervisor', id: threadId });
        const provider = sup?.provider ?? ports.defaultProvider;
        // A provider this Baton lacks keeps nothing alive across a restart.
        if (
          ports.providers.get(provider) &&
          ports.capabilities(provider, sup?.acpAgent).sessions.pendingRequestsSurviveRestart
        )
          continue;
        thread.deliver(
          { kind: 'runtime_request', id: r.id },
          { type: 'CALLBACK_LOST', reason: 'Baton restarted: the provider callback is gone' },
        );
        marked += 1;
      }
      for (const s of sessions.filter((s) => s.threadId === threadId)) {
        thread.deliver({ kind: 'provider_session', id: s.id }, { type: 'STOPPED', reason: 'Baton restarted' });
      }
      closeSubagents(thread, threadId);
      for (const t of active.filter((t) => t.id === threadId)) {
        thread.deliver(
          { kind: 'run', id: t.activeRunId! },
          {
            type: 'PROVIDER_LOST',
            status: 'interrupted',
            error: {
              code: 'provider_error',
              message: 'Baton restarted while the run was active; its provider process is gone',
            },
          },
        );
      }
      return {};
    });
  }
  return marked;
}

/**
 * After a restart, open subagents (and what lies under them: their tools) end interrupted: the
 * provider process that ran them is gone, and no run's end closes them (a background one
 * outlived its run). Their requests end with their callbacks.
 */
function closeSubagents(thread: StepContext, threadId: ThreadId): void {
  const open = thread.current.view.list(
    'graph_nodes',
    threadId,
    (n) => ['pending', 'running', 'waiting'].includes(n.status) && !n.countsForRun,
  );
  const subagents = new Set<string>(open.filter((n) => n.kind === 'subagent').map((n) => n.id));
  const byId = new Map<string, (typeof open)[number]>(open.map((n) => [n.id, n]));
  const inSubagent = (id: string | null): boolean => {
    for (let at = id; at; at = byId.get(at)?.parentNodeId ?? null) if (subagents.has(at)) return true;
    return false;
  };
  for (const n of open)
    if (inSubagent(n.id) && n.kind !== 'approval_request' && n.kind !== 'user_input_request')
      thread.deliver({ kind: 'execution_node', id: n.id }, { type: 'CLOSE', status: 'interrupted' });
}
