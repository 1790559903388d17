import type { Logger } from 'pino';
import { z } from 'zod';
import type { IdSource } from '../domain/sources.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { Store } from '../persistence/store.js';
import type { OrchestratorMcpAccess, ProviderHost } from './provider-host.js';
import type { StepOutcome } from './step-outcome.js';

/** What the host port is made of: the runtime's store, ids, log and provider-event entry. */
export interface ProviderHostSource {
  readonly store: Store;
  readonly ids: IdSource;
  readonly logger: Logger;
  ingest(raw: unknown): Promise<StepOutcome<Record<string, unknown>>>;
  /** Baton's orchestrator MCP server, once it serves one. */
  readonly orchestratorMcp?: OrchestratorMcpAccess | null;
}

/** The host port over a runtime, for one provider's adapters (`provider` names it in the log). */
export function providerHostOf(runtime: ProviderHostSource, provider: ProviderKind): ProviderHost {
  const store = runtime.store;
  return {
    ids: runtime.ids,
    ingest: async (event) => {
      const outcome = await runtime.ingest(event);
      if (!outcome.ok && outcome.error.code !== 'not_found')
        runtime.logger.warn({ provider, event: event.type, error: outcome.error }, 'a provider event was refused');
      return outcome;
    },
    nativeThreadRef: (providerThreadId) => boundNativeThreadRef(store, providerThreadId),
    subagentThreadOf: (threadId, nativeThreadRef) => liveSubagentThread(store, threadId, nativeThreadRef),
    nativeTurnRef: (attemptId) =>
      store.bindings.forApp(attemptId).find((b) => b.entityKind === 'run_attempt')?.nativeRef ?? null,
    runs: (threadId) => store.projections.list('runs', threadId),
    threadCwd: (threadId) => store.projections.get('threads', threadId)?.workspace.cwd ?? process.cwd(),
    activeRunId: (threadId) => store.projections.get('threads', threadId)?.activeRunId ?? null,
    orchestratorMcp: (threadId) => runtime.orchestratorMcp?.open(threadId) ?? null,
  };
}

/**
 * The native thread a provider thread was loaded with: its identity binding (written as
 * it is loaded; the newest one if a resume moved it). A provider thread loaded before
 * Baton kept that binding has its native ref only in its own row: read there, parsed.
 */
export function boundNativeThreadRef(store: Store, providerThreadId: string): string | null {
  const bound = store.bindings
    .forApp(providerThreadId)
    .filter((b) => b.entityKind === 'provider_thread')
    .at(-1);
  if (bound) return bound.nativeRef;
  const row = store.entities.get(providerThreadId);
  if (row?.kind !== 'provider_thread') return null;
  const stored = StoredProviderThread.safeParse(row.snapshot);
  return stored.success ? stored.data.context.nativeThreadRef : null;
}

/**
 * The newest subagent node of the thread working on that native thread names its provider
 * thread; it is the child's still if that actor has not ended (a closed child, or one that
 * failed, is not gone on with).
 */
function liveSubagentThread(store: Store, threadId: string, nativeThreadRef: string): string | null {
  const node = store.projections
    .list('graph_nodes', threadId)
    .filter((n) => n.kind === 'subagent' && n.providerThreadId && n.detail?.['nativeThreadId'] === nativeThreadRef)
    .at(-1);
  if (!node?.providerThreadId) return null;
  const row = store.entities.get(node.providerThreadId);
  const actor = ActorStatus.safeParse(row?.snapshot);
  return row?.kind === 'provider_thread' && actor.success && actor.data.status === 'active'
    ? node.providerThreadId
    : null;
}

/** A persisted actor's status: `done` once it reached a final state. */
const ActorStatus = z.object({ status: z.string() });

/** What an older provider thread row holds of its native ref. */
const StoredProviderThread = z.object({ context: z.object({ nativeThreadRef: z.string().nullable() }) });
