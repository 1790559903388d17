import type { OrchestratorMcpSession } from '../../actors/provider-host.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';

/** What an adapter needs from the rest of Baton, kept narrow so replays can drive it too. */
export interface CodexHost {
  ids: IdSource;
  /** Hands a normalized event to the runtime (in order, per thread). */
  emit(event: ProviderEvent): Promise<unknown>;
  /** The native ref a provider thread was bound to, if any (for thread/resume). */
  nativeThreadRef(providerThreadId: string): string | null;
  /** The provider thread of a child an earlier session met, if it has not ended (see ProviderHost). */
  subagentThreadOf(threadId: string, nativeThreadRef: string): string | null;
  /** The native turn id recorded for an attempt, if any (for thread/revert). */
  nativeTurnRef(attemptId: string): string | null;
  /** The first attempt of the run with this ordinal on the thread (for thread/revert). */
  attemptOfRun(threadId: string, runOrdinal: number): string | null;
  /** The native turns of the runs up to `runOrdinal` that are kept, on this provider thread (to check a revert). */
  keptTurnRefs(threadId: string, runOrdinal: number, providerThreadId: string): string[];
  threadCwd(threadId: string): string;
  /** A credential of the session's own on Baton's MCP server (see ProviderHost). */
  orchestratorMcp?(threadId: string): OrchestratorMcpSession | null;
}
