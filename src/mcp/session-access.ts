import type { OrchestratorMcpAccess, OrchestratorMcpSession } from '../actors/provider-host.js';
import { ThreadId } from '../domain/ids.js';
import type { Store } from '../persistence/store.js';
import { MCP_PATH } from './http-endpoint.js';
import type { SessionCredentials } from './credentials.js';

/**
 * The providers' way to Baton's MCP server: for each provider session, the server's URL and
 * a credential minted for that session alone, scoped to its thread and to the modes the thread
 * has as the session starts. Nothing is handed out before `bind` (Baton listens first).
 */
export class OrchestratorMcpSessions implements OrchestratorMcpAccess {
  private url: string | null = null;

  constructor(
    private readonly store: Store,
    private readonly credentials: SessionCredentials,
  ) {}

  /** Baton listens at `origin` (`http://host:port`): sessions started from now on reach `/mcp` there. */
  bind(origin: string): void {
    this.url = `${origin}${MCP_PATH}`;
  }

  open(threadId: string): OrchestratorMcpSession | null {
    const thread = this.url ? this.store.projections.get('threads', threadId) : null;
    if (!this.url || !thread) return null;
    const minted = this.credentials.mint({
      threadId: ThreadId.parse(threadId),
      runtimeMode: thread.runtimeMode,
      interactionMode: thread.interactionMode,
    });
    return { url: this.url, token: minted.token, revoke: minted.revoke };
  }
}

/** The origin an agent on this machine reaches Baton at: a wildcard listen address is reached on loopback. */
export function loopbackOrigin(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '') return `http://127.0.0.1:${port}`;
  if (host === '::') return `http://[::1]:${port}`;
  return host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}
