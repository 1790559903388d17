import type { ProjectionRow } from '../domain/projections.js';
import type { ProviderEvent } from '../domain/provider-events.js';
import type { IdSource } from '../domain/sources.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { StepOutcome } from './step-outcome.js';

/**
 * The host side of the provider seam (types only): what a provider's adapters may ask of
 * the runtime. The effect side is `EffectWorkerPort` (./effect-handler.ts); the runtime
 * implements both (see `providerHostOf`), so a provider imports nothing of it but these.
 */

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
  /**
   * The provider thread a subagent of the thread already has for this native thread, if it
   * has not ended (closed, failed): a later session that meets the same child goes on in it.
   */
  subagentThreadOf(threadId: string, nativeThreadRef: string): string | null;
  /** The native turn id bound to an attempt, if any. */
  nativeTurnRef(attemptId: string): string | null;
  /** The thread's runs as the read model has them, in order. */
  runs(threadId: string): ProjectionRow<'runs'>[];
  /** The thread's workspace; the process's cwd for a thread Baton does not know. */
  threadCwd(threadId: string): string;
  /** The thread's active run, if any. */
  activeRunId(threadId: string): string | null;
  /**
   * A credential of its own for a provider session of the thread, on Baton's orchestrator MCP
   * server (null: this Baton serves none). Revoke it when that session stops.
   */
  orchestratorMcp?(threadId: string): OrchestratorMcpSession | null;
}

/** Baton's orchestrator MCP server as one provider session reaches it (DESIGN.md section 8). */
export interface OrchestratorMcpSession {
  /** Where it is: `http://127.0.0.1:<port>/mcp` (Streamable HTTP). */
  url: string;
  /** The session's own bearer credential. */
  token: string;
  /** Ends the credential (idempotent): the session has stopped. */
  revoke(): void;
}

/** Mints those credentials (the MCP server's side of the port). */
export interface OrchestratorMcpAccess {
  open(threadId: string): OrchestratorMcpSession | null;
}

/** What a provider is built on: the runtime, seen only as the source of its host port. */
export interface ProviderRuntime {
  /** The host port for one provider's adapters (`provider` names it in the log). */
  providerHost(provider: ProviderKind): ProviderHost;
}
