import type { ProjectionRow } from '../domain/projections.js';
import type { ProviderEvent } from '../domain/provider-events.js';
import type { IdSource } from '../domain/sources.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { ProviderThreadContext } from '../machines/provider-thread.machine.js';
import type { Runtime } from './runtime.js';
import type { StepOutcome } from './thread-actor.js';

/**
 * What an adapter may ask of the runtime: ids, a way to report (ingest), and the few
 * facts it needs about app entities, each a typed read. Adapters never read the store or
 * a machine's context themselves, so what they depend on is named here.
 */
export interface ProviderHost {
  ids: IdSource;
  /** Hands a normalized provider event to the runtime (in order, per thread); a refusal other than an unknown thread is logged. */
  ingest(event: ProviderEvent): Promise<StepOutcome<Record<string, unknown>>>;
  /** The native ref a provider thread was loaded with, if any (to resume it). */
  nativeThreadRef(providerThreadId: string): string | null;
  /** The native turn id bound to an attempt, if any. */
  nativeTurnRef(attemptId: string): string | null;
  /** The thread's runs as the read model has them, in order. */
  runs(threadId: string): ProjectionRow<'runs'>[];
  /** The thread's workspace; the process's cwd for a thread Baton does not know. */
  threadCwd(threadId: string): string;
  /** The thread's active run, if any. */
  activeRunId(threadId: string): string | null;
}

/** The host port over a runtime, for one provider's adapters (`provider` names it in the log). */
export function providerHostOf(runtime: Runtime, provider: ProviderKind): ProviderHost {
  const store = runtime.store;
  return {
    ids: runtime.ids,
    ingest: async (event) => {
      const outcome = await runtime.ingest(event);
      if (!outcome.ok && outcome.error.code !== 'not_found') runtime.logger.warn({ provider, event: event.type, error: outcome.error }, 'a provider event was refused');
      return outcome;
    },
    // The provider thread's own row is the record of its native ref (no binding is kept for it yet).
    nativeThreadRef: (providerThreadId) => {
      const row = store.entities.get(providerThreadId);
      return row?.kind === 'provider_thread' ? ((row.snapshot as { context?: ProviderThreadContext }).context?.nativeThreadRef ?? null) : null;
    },
    nativeTurnRef: (attemptId) => store.bindings.forApp(attemptId).find((b) => b.entityKind === 'run_attempt')?.nativeRef ?? null,
    runs: (threadId) => store.projections.list('runs', threadId),
    threadCwd: (threadId) => store.projections.get('threads', threadId)?.workspace.cwd ?? process.cwd(),
    activeRunId: (threadId) => store.projections.get('threads', threadId)?.activeRunId ?? null,
  };
}
