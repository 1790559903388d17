import { z } from 'zod';

/**
 * The user's own MCP servers (`BATON_MCP_SERVERS`), handed to every agent Baton starts:
 * Codex finds them in its home's config, Claude in the SDK's `mcpServers`, an ACP agent in
 * each session it opens. Each is a stdio server the agent runs itself, so each agent gets
 * the same ones under the same names.
 */
const McpServerSpec = z
  .object({
    /** The program: an absolute path, or a name found on the agent's PATH. */
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    /** Added to the environment the agent gives the server. */
    env: z
      .record(
        z
          .string()
          .regex(
            /^[A-Za-z_][A-Za-z0-9_]*$/,
            'an environment variable name is letters, digits and _, not starting with a digit',
          ),
        z.string(),
      )
      .default({}),
  })
  .strict();

/** What the providers take: a server's args and env may be left out. */
export type McpServers = Record<string, { command: string; args: string[]; env?: Record<string, string> }>;

/**
 * A server's name as every agent can carry it: a TOML bare key for Codex, and for Claude the
 * middle of `mcp__NAME__TOOL`, so letters, digits, `-` and single `_`. `baton` is Baton's own
 * orchestrator server, given to every session already.
 */
const McpServerName = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$/, 'an MCP server name is letters, digits, - and single _')
  .refine((name) => name !== 'baton', 'the MCP server name baton is Baton\u2019s own');

export const McpServersSpec = z.record(McpServerName, McpServerSpec);
