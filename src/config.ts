import { z } from 'zod';
import { resolve } from 'node:path';
import { parseOrThrow } from './domain/errors.js';
import { OriginList } from './server/origin-policy.js';
import { McpServersSpec } from './providers/mcp-servers.js';

/** How Baton starts one ACP agent: a child process speaking ACP over its stdio. */
export const AcpAgentSpec = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    /** Added to the environment Baton gives the agent. */
    env: z.record(z.string(), z.string()).default({}),
  })
  .strict();
export type AcpAgentSpec = z.infer<typeof AcpAgentSpec>;

/** A name a thread can pick with `acpAgent`: no spaces or slashes, so it reads the same in a URL, a log or a flag. */
const AcpAgentName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'an agent name is letters, digits, . _ -');

/** A variable holding a JSON object (an override may give the object itself), read as `schema`. */
const jsonVariable = <T extends z.ZodType>(name: string, schema: T) =>
  z.preprocess((value, ctx) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: `${name} is not JSON: ${e instanceof Error ? e.message : String(e)}` });
      return z.NEVER;
    }
  }, schema);

/** `BATON_ACP_AGENTS`: a JSON object of name -> launch spec. */
const AcpAgents = jsonVariable('BATON_ACP_AGENTS', z.record(AcpAgentName, AcpAgentSpec));

/**
 * Baton's configuration: environment variables (and, later, matching CLI flags),
 * validated with zod so a bad value is one clear error at start-up.
 */
export const Config = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.coerce.number().int().min(0).max(65_535).default(7420),
  dataDir: z.string().min(1).default('.baton'),
  token: z.string().min(16).optional(),
  /** Browser origins allowed to connect besides Baton's own: `https://gui.example.com,http://localhost:5173`. */
  allowedOrigins: OriginList.default([]),
  model: z.enum(['scripted', 'auto']).default('auto'),
  codexBaseUrl: z.url().optional(),
  codexModel: z.string().min(1).optional(),
  claudeBaseUrl: z.url().optional(),
  claudeModel: z.string().min(1).optional(),
  /** The offline scripted model streams its replies this slowly (ms between chunks). */
  scriptedDelayMs: z.coerce.number().int().min(0).max(10_000).default(0),
  /** A turn with no word from its agent for this long is interrupted and fails with `timeout`. */
  turnIdleTimeoutMs: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(24 * 3_600_000)
    .default(300_000),
  /** An interrupt the agent does not answer (or does not end) in this time kills its session. */
  interruptTimeoutMs: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** One git call of a checkpoint capture or restore is killed after this long. */
  gitTimeoutMs: z.coerce
    .number()
    .int()
    .min(100)
    .max(24 * 3_600_000)
    .default(300_000),
  /** ACP agents registered besides the built-in ones (a name here replaces a built-in of that name). */
  acpAgents: AcpAgents.default({}),
  /** The user's MCP servers, given to every agent: a JSON object of name -> `{ command, args?, env? }`. */
  mcpServers: jsonVariable('BATON_MCP_SERVERS', McpServersSpec).default({}),
});
export type Config = z.infer<typeof Config>;

const envNames: Record<keyof Config, string> = {
  host: 'BATON_HOST',
  port: 'BATON_PORT',
  dataDir: 'BATON_DATA_DIR',
  token: 'BATON_TOKEN',
  allowedOrigins: 'BATON_ALLOWED_ORIGINS',
  model: 'BATON_MODEL',
  codexBaseUrl: 'BATON_CODEX_BASE_URL',
  codexModel: 'BATON_CODEX_MODEL',
  claudeBaseUrl: 'BATON_CLAUDE_BASE_URL',
  claudeModel: 'BATON_CLAUDE_MODEL',
  scriptedDelayMs: 'BATON_SCRIPTED_DELAY_MS',
  turnIdleTimeoutMs: 'BATON_TURN_IDLE_TIMEOUT_MS',
  interruptTimeoutMs: 'BATON_INTERRUPT_TIMEOUT_MS',
  gitTimeoutMs: 'BATON_GIT_TIMEOUT_MS',
  acpAgents: 'BATON_ACP_AGENTS',
  mcpServers: 'BATON_MCP_SERVERS',
};

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<Record<keyof Config, unknown>> = {},
): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Config.keyof().options) {
    const value = overrides[key] ?? env[envNames[key]];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const config = parseOrThrow(Config, raw, 'invalid_payload', 'configuration');
  return { ...config, dataDir: resolve(config.dataDir) };
}

export const databasePath = (config: Config): string => resolve(config.dataDir, 'baton.sqlite');
