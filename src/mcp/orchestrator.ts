import type { Logger } from 'pino';
import type { Runtime } from '../actors/runtime.js';
import type { McpCredentials } from './credentials.js';
import { McpEndpoint } from './http-endpoint.js';
import { readTools } from './read-tools.js';
import { threadCreateTools } from './thread-create-tools.js';
import { threadRunTools } from './thread-run-tools.js';
import { threadWaitTool } from './thread-wait.js';
import { ToolRegistry } from './tool-registry.js';

/** Every tool of the orchestrator MCP server, on one runtime (issue 16 adds delegate_task and task_*). */
export function orchestratorTools(runtime: Runtime, logger: Logger): ToolRegistry {
  const registry: ToolRegistry = new ToolRegistry(
    [
      ...readTools(runtime, () => registry.names()),
      ...threadCreateTools(runtime),
      ...threadRunTools(runtime),
      threadWaitTool(runtime),
    ],
    logger,
  );
  return registry;
}

/** The orchestrator MCP server of DESIGN.md section 8, ready to mount at `/mcp` on Baton's HTTP server. */
export function orchestratorMcp(runtime: Runtime, credentials: McpCredentials, logger: Logger): McpEndpoint {
  return new McpEndpoint({ credentials, tools: orchestratorTools(runtime, logger), logger });
}
