import type { Logger } from 'pino';
import type { Runtime } from '../actors/runtime.js';
import { batonCredentials, SessionCredentials, type McpCredentials } from './credentials.js';
import { McpEndpoint } from './http-endpoint.js';
import { delegationTools } from './delegation-tools.js';
import { readTools } from './read-tools.js';
import { loopbackOrigin, OrchestratorMcpSessions } from './session-access.js';
import { threadCreateTools } from './thread-create-tools.js';
import { threadRunTools } from './thread-run-tools.js';
import { threadWaitTool } from './thread-wait.js';
import { ToolRegistry } from './tool-registry.js';

/** Every tool of the orchestrator MCP server, on one runtime (each tool says which scopes see it). */
export function orchestratorTools(runtime: Runtime, logger: Logger): ToolRegistry {
  const registry: ToolRegistry = new ToolRegistry(
    [
      ...readTools(runtime, (scope) => registry.list(scope).map((t) => t.name)),
      ...threadCreateTools(runtime),
      ...threadRunTools(runtime),
      threadWaitTool(runtime),
      ...delegationTools(runtime),
    ],
    logger,
  );
  return registry;
}

/** The orchestrator MCP server of DESIGN.md section 8, ready to mount at `/mcp` on Baton's HTTP server. */
export function orchestratorMcp(runtime: Runtime, credentials: McpCredentials, logger: Logger): McpEndpoint {
  return new McpEndpoint({ credentials, tools: orchestratorTools(runtime, logger), logger });
}

/**
 * Baton's MCP server with both kinds of credential: Baton's own token (full scope) and one
 * minted for each provider session (the runtime hands them to the providers). Sessions get
 * theirs once `listening` says where Baton listens: call it before any session may start.
 */
export function batonMcp(runtime: Runtime, ownerToken: string, logger: Logger) {
  const sessions = new SessionCredentials();
  const access = new OrchestratorMcpSessions(runtime.store, sessions);
  runtime.orchestratorMcp = access;
  const endpoint = orchestratorMcp(runtime, batonCredentials(ownerToken, sessions), logger);
  return { endpoint, sessions, listening: (host: string, port: number) => access.bind(loopbackOrigin(host, port)) };
}
