import { createHash, randomBytes } from 'node:crypto';
import type { ThreadId } from '../domain/ids.js';
import type { InteractionMode, RuntimeMode } from '../domain/statuses.js';
import { sameToken } from '../server/auth.js';

/**
 * What a caller of `/mcp` may do. Baton's own token is the `full` scope: every thread, every
 * tool. A provider session's own credential is the `session` scope: the delegation tools, on
 * behalf of that session's thread, never broader than the modes the session runs with.
 * `principal` names the caller: it namespaces idempotency keys, so two callers'
 * `clientRequestId`s can never meet on one command id (a retry of one can never be answered
 * with the other's result).
 */
export type McpScope =
  | { kind: 'full'; principal: string }
  | {
      kind: 'session';
      /** The thread's id: every session of one thread is one caller (a retry after a restart of its agent is still a retry). */
      principal: string;
      threadId: ThreadId;
      runtimeMode: RuntimeMode;
      interactionMode: InteractionMode;
    };

export type SessionScope = Extract<McpScope, { kind: 'session' }>;

/** The credential check of `/mcp`: a bearer token in, the caller's scope out (null: refused with 401). */
export interface McpCredentials {
  verify(token: string): { scope: McpScope } | null;
}

/** The principal of Baton's own token. */
export const OWNER_PRINCIPAL = 'owner';

/** Baton's own token (the one the Socket.IO handshake checks) opens `/mcp` with full scope. */
export function ownerCredentials(token: string): McpCredentials {
  return {
    verify: (offered) => (sameToken(offered, token) ? { scope: { kind: 'full', principal: OWNER_PRINCIPAL } } : null),
  };
}

/** One minted credential: the token to hand the agent, and its revocation (idempotent). */
export interface MintedCredential {
  token: string;
  revoke(): void;
}

const hashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * Per-session credentials: a random token minted for one provider session and revoked when
 * that session stops. Only a hash of each is kept, in memory: no session outlives the Baton
 * that started it, so neither does its credential (a restart revokes them all). A token is
 * 32 random bytes, so a lookup by its hash needs no constant-time comparison.
 */
export class SessionCredentials implements McpCredentials {
  private readonly live = new Map<string, SessionScope>();

  mint(scope: Omit<SessionScope, 'kind' | 'principal'>): MintedCredential {
    const token = `bms_${randomBytes(32).toString('base64url')}`;
    const hash = hashOf(token);
    this.live.set(hash, { kind: 'session', principal: scope.threadId, ...scope });
    return { token, revoke: () => void this.live.delete(hash) };
  }

  verify(token: string): { scope: McpScope } | null {
    const scope = this.live.get(hashOf(token));
    return scope ? { scope } : null;
  }

  /** How many credentials are live (one per provider session that has not stopped). */
  get size(): number {
    return this.live.size;
  }
}

/** Baton's own token first, then the sessions' credentials. */
export function batonCredentials(ownerToken: string, sessions: SessionCredentials): McpCredentials {
  const owner = ownerCredentials(ownerToken);
  return { verify: (token) => owner.verify(token) ?? sessions.verify(token) };
}
