import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { CanUseTool, McpServerConfig, Options } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import { BatonError } from '../../domain/errors.js';
import { ensurePrivateDir } from '../../persistence/private-file.js';
import type { McpServers } from '../mcp-servers.js';

/**
 * Everything the real Claude agent needs to start offline and isolated: its own folders
 * (HOME, config, temp) per provider session, an environment that points it at one
 * Messages-API endpoint and carries none of the parent's secrets, and the SDK `Options`.
 * Only `ensureClaudeSessionDirs` touches the disk.
 */

/** A Messages-API endpoint (`BATON_CLAUDE_BASE_URL`, `BATON_CLAUDE_MODEL`, or the scripted server). */
export const ClaudeEndpoint = z.object({
  /** For `ANTHROPIC_BASE_URL`: without `/v1` (the agent adds `/v1/messages`). */
  baseUrl: z.url({ protocol: /^https?$/ }).refine((url) => !/\/v1\/?$/.test(url), 'the base URL must not end in /v1'),
  model: z.string().min(1),
});
export type ClaudeEndpoint = z.infer<typeof ClaudeEndpoint>;

/** A provider session's key becomes a folder name: nothing that could leave the base dir. */
const SessionKey = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'a session key is 1 to 128 of [A-Za-z0-9_-]');

export interface ClaudeSessionDirs {
  root: string;
  /** `HOME`: so nothing of the user's `~` is read; with `CLAUDE_CONFIG_DIR` set the agent writes nothing here. */
  home: string;
  /** `CLAUDE_CONFIG_DIR`: `.claude.json`, session transcripts (`projects/<cwd>/<session>.jsonl`, which resume reads). */
  configDir: string;
  /** `CLAUDE_CODE_TMPDIR`. */
  tmpDir: string;
}

/** The folders of one provider session under `baseDir` (pure; `ensureClaudeSessionDirs` makes them). */
export function claudeSessionDirs(baseDir: string, sessionKey: string): ClaudeSessionDirs {
  const key = SessionKey.safeParse(sessionKey);
  if (!key.success)
    throw new BatonError('invalid_payload', `invalid Claude session key: ${z.prettifyError(key.error)}`);
  const root = join(baseDir, key.data);
  return { root, home: join(root, 'home'), configDir: join(root, 'config'), tmpDir: join(root, 'tmp') };
}

/** Makes the session's folders, each 0700 (also when they existed). */
export function ensureClaudeSessionDirs(dirs: ClaudeSessionDirs): ClaudeSessionDirs {
  for (const dir of [dirs.root, dirs.home, dirs.configDir, dirs.tmpDir]) ensurePrivateDir(dir);
  return dirs;
}

/**
 * What the agent may inherit from Baton's environment: how to find programs and how to
 * print text. Nothing else (no tokens, no proxies, no `ANTHROPIC_*`, no `IS_SANDBOX`:
 * `claudeOptions` sets its own).
 */
const INHERITED = ['PATH', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ'] as const;

/** A key the agent sends to the endpoint; the scripted server ignores it. */
export const DUMMY_ANTHROPIC_API_KEY = 'sk-ant-baton-offline-dummy';

export interface ClaudeEnvInput {
  endpoint: ClaudeEndpoint;
  dirs: ClaudeSessionDirs;
  /** The real key for a real endpoint; the dummy otherwise. */
  apiKey?: string;
  /** Where `PATH` and the locale come from (default `process.env`). */
  parentEnv?: NodeJS.ProcessEnv;
}

/** The agent's whole environment (the SDK replaces, not merges, `process.env` with it). */
export function claudeEnv(input: ClaudeEnvInput): Record<string, string> {
  const parent = input.parentEnv ?? process.env;
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    HOME: input.dirs.home,
    CLAUDE_CONFIG_DIR: input.dirs.configDir,
    CLAUDE_CODE_TMPDIR: input.dirs.tmpDir,
    ANTHROPIC_BASE_URL: input.endpoint.baseUrl,
    ANTHROPIC_API_KEY: input.apiKey ?? DUMMY_ANTHROPIC_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    // TodoWrite (Baton's todo list) instead of the agent's task tools, which it offers by default.
    // Background tasks stay on: a background subagent outlives its run (claude-subagents.ts), and
    // the turn the agent runs of its own after one ends is a run of its own (claude-own-turns.ts).
    CLAUDE_CODE_ENABLE_TASKS: 'false',
  };
}

const PLATFORM_PACKAGES: Record<string, string[]> = {
  'linux-x64': ['@anthropic-ai/claude-agent-sdk-linux-x64', '@anthropic-ai/claude-agent-sdk-linux-x64-musl'],
  'linux-arm64': ['@anthropic-ai/claude-agent-sdk-linux-arm64', '@anthropic-ai/claude-agent-sdk-linux-arm64-musl'],
  'darwin-x64': ['@anthropic-ai/claude-agent-sdk-darwin-x64'],
  'darwin-arm64': ['@anthropic-ai/claude-agent-sdk-darwin-arm64'],
};

/**
 * The native `claude` binary from the SDK's pinned platform package, resolved from the
 * SDK's own folder as the SDK does (the platform package is its optional dependency and
 * has no `exports`, so `<package>/claude` resolves to the file). glibc first, then musl.
 */
export function claudeBinaryPath(platform = process.platform, arch = process.arch): string {
  const packages = PLATFORM_PACKAGES[`${platform}-${arch}`];
  if (!packages) throw new BatonError('unsupported', `no Claude binary for ${platform}-${arch}`);
  const fromSdk = createRequire(createRequire(import.meta.url).resolve('@anthropic-ai/claude-agent-sdk'));
  for (const pkg of packages) {
    try {
      return fromSdk.resolve(`${pkg}/claude`);
    } catch {
      // not installed: the next candidate
    }
  }
  throw new BatonError(
    'unsupported',
    `${packages.join(' or ')} is not installed (it comes with @anthropic-ai/claude-agent-sdk as an optional dependency)`,
  );
}

export interface ClaudeOptionsInput {
  cwd: string;
  model: string;
  env: Record<string, string>;
  /** Optional here: the adapter adds its own per session. */
  canUseTool?: CanUseTool;
  abortController?: AbortController;
  /** A session id to resume (its transcript must be in the same `CLAUDE_CONFIG_DIR`). */
  resume?: string;
  stderr?: (data: string) => void;
  pathToClaudeCodeExecutable?: string;
  /** Baton's orchestrator MCP server and this session's own credential there: the agent's `baton` MCP server. */
  batonMcp?: { url: string; token: string };
  /** The user's MCP servers (stdio), which the agent runs itself. */
  mcpServers?: McpServers;
}

/** The agent's MCP servers: the user's stdio ones and Baton's own (`baton`, Streamable HTTP). */
function agentMcpServers(input: ClaudeOptionsInput): Record<string, McpServerConfig> {
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, s] of Object.entries(input.mcpServers ?? {}))
    servers[name] = { type: 'stdio', command: s.command, args: s.args, ...(s.env ? { env: s.env } : {}) };
  if (input.batonMcp)
    servers.baton = {
      type: 'http',
      url: input.batonMcp.url,
      headers: { Authorization: `Bearer ${input.batonMcp.token}` },
    };
  return servers;
}

/**
 * The SDK options of one long-lived streaming-input query. It starts in the `default` mode;
 * each turn then applies its thread's settings (`applyTurnSettings`), `bypassPermissions`
 * for a full-access thread included: the agent is always started able to switch to it.
 * As root the agent refuses that ("cannot be used with root/sudo privileges") unless
 * `IS_SANDBOX=1` (measured), so as root it gets that too.
 */
export function claudeOptions(input: ClaudeOptionsInput, uid: number | null = process.getuid?.() ?? null): Options {
  return {
    pathToClaudeCodeExecutable: input.pathToClaudeCodeExecutable ?? claudeBinaryPath(),
    cwd: input.cwd,
    model: input.model,
    env: uid === 0 ? { ...input.env, IS_SANDBOX: '1' } : input.env,
    ...(input.canUseTool ? { canUseTool: input.canUseTool } : {}),
    // No user, project or local settings files: nothing on disk widens or narrows permissions.
    settingSources: [],
    // Explicit: every tool that needs permission goes through `canUseTool` until a turn's settings say otherwise.
    permissionMode: 'default',
    allowDangerouslySkipPermissions: true,
    includePartialMessages: true,
    // A subagent's own text (its stream is never forwarded): shown under its node.
    forwardSubagentText: true,
    ...(input.abortController ? { abortController: input.abortController } : {}),
    ...(input.resume ? { resume: input.resume } : {}),
    ...(input.stderr ? { stderr: input.stderr } : {}),
    // Baton runs the Claude Code bundled with the SDK, which takes its MCP servers over stdin: a credential stays off its command line.
    ...(input.batonMcp || Object.keys(input.mcpServers ?? {}).length
      ? { mcpServersDelivery: 'initialize' as const, mcpServers: agentMcpServers(input) }
      : {}),
  };
}
