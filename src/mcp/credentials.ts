import { sameToken } from '../server/auth.js';

/**
 * What a caller of `/mcp` may do. Baton's own token is the `full` scope: every thread, every
 * tool. Per-session scoped credentials (issue 16: one per provider session, revoked with it,
 * limited to that session's thread and modes) are another variant of this union.
 */
export type McpScope = {
  kind: 'full';
  /**
   * Who is calling. It namespaces idempotency keys, so two callers' `clientRequestId`s can
   * never meet on one command id (a retry of one can never be answered with the other's result).
   */
  principal: string;
};

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
