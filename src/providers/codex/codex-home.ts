import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BatonError } from '../../domain/errors.js';
import { ensureFileContent, ensurePrivateDir, readFileOrNull } from '../../persistence/private-file.js';
import { codexBinaryPath } from './codex-binary.js';
import type { McpServers } from '../mcp-servers.js';

export interface CodexModelEndpoint {
  /** A Responses API base URL, e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  model: string;
  /** How long a silent stream may idle before Codex gives up on it. */
  streamIdleTimeoutMs?: number;
  /** MCP servers (stdio) Codex may call, by name; none unless asked for. */
  mcpServers?: McpServers;
  /** Baton's orchestrator MCP server (Streamable HTTP), as the `baton` MCP server; each session's bearer token is in its environment. */
  batonMcpUrl?: string;
}

/** The environment variable each Codex process finds its own credential for Baton's MCP server in. */
export const BATON_MCP_TOKEN_ENV = 'BATON_MCP_TOKEN';

/** A TOML basic string: JSON's escapes are TOML's, but TOML also refuses a raw DEL. */
const toml = (s: string) => JSON.stringify(s).replace(/\u007f/g, '\\u007F');

let bundled: { models: Record<string, unknown>[] } | null = null;

/**
 * A model catalog naming the endpoint's model, so Codex knows its metadata (no fallback
 * warnings) and offers it `apply_patch` as a freeform tool. The entry is Codex's own bundled
 * metadata of a plain Responses-API model (`codex debug models --bundled`), renamed.
 */
function modelCatalog(model: string): string {
  bundled ??= JSON.parse(execFileSync(codexBinaryPath(), ['debug', 'models', '--bundled'], { encoding: 'utf8' })) as {
    models: Record<string, unknown>[];
  };
  const plain = bundled.models.find((m) => m.tool_mode == null && m.use_responses_lite !== true) ?? bundled.models[0]!;
  return JSON.stringify({
    models: [{ ...plain, slug: model, display_name: model, apply_patch_tool_type: 'freeform', visibility: 'list' }],
  });
}

/**
 * Baton's config.toml: one Responses-API endpoint, no retries, update checks, analytics or
 * plugins; Codex's multi-agent runtime v2 (`multi_agent_v2`, the one its newest bundled
 * models declare): the `collaboration` tools are offered up front, a subagent goes by the
 * task name its spawn gives it and `wait_agent` waits on any of them, so a spawn and its wait
 * fit in one model response (v1, Codex's default otherwise, defers its tools behind
 * tool_search and waits by the child's thread id). Both are mapped (docs/codex.md).
 */
export function codexConfigToml(catalogPath: string, endpoint: CodexModelEndpoint): string {
  return [
    `model = ${toml(endpoint.model)}`,
    `model_catalog_json = ${toml(catalogPath)}`,
    'model_provider = "baton"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.baton]',
    'name = "Baton model endpoint"',
    `base_url = ${toml(endpoint.baseUrl)}`,
    'wire_api = "responses"',
    'requires_openai_auth = false',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    `stream_idle_timeout_ms = ${endpoint.streamIdleTimeoutMs ?? 10_000}`,
    'supports_websockets = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    'unbounded_connection_retries = false',
    'multi_agent_v2 = true',
    '',
    '[tools.update_plan]',
    'enabled = true',
    '',
    ...Object.entries(endpoint.mcpServers ?? {}).flatMap(([name, server]) => [
      `[mcp_servers.${name}]`,
      `command = ${toml(server.command)}`,
      `args = [${server.args.map(toml).join(', ')}]`,
      ...(server.env && Object.keys(server.env).length
        ? [
            `env = { ${Object.entries(server.env)
              .map(([k, v]) => `${toml(k)} = ${toml(v)}`)
              .join(', ')} }`,
          ]
        : []),
      '',
    ]),
    // The home is shared by every session, so the credential is not in it: each process reads its own from its env.
    // A thread_wait may wait up to 10 minutes: the tool timeout (60 s by default) allows it.
    ...(endpoint.batonMcpUrl
      ? [
          '[mcp_servers.baton]',
          `url = ${toml(endpoint.batonMcpUrl)}`,
          `bearer_token_env_var = ${toml(BATON_MCP_TOKEN_ENV)}`,
          'tool_timeout_sec = 660',
          '',
        ]
      : []),
  ].join('\n');
}

/**
 * Makes `dir` a CODEX_HOME that points Codex at one endpoint and at nothing else, and
 * checks it does before any session may start there.
 *
 * Sessions share this home (a thread stored by one can be resumed by another), and they
 * start concurrently: each file is written only when its content differs, and then whole
 * (a temporary file renamed over it), so a Codex starting meanwhile never reads an empty
 * or half-written config and falls back to its built-in public provider. What is on disk
 * is read back and compared: a home that does not hold Baton's configuration is a typed
 * refusal, and no session starts on it.
 */
export function ensureCodexHome(dir: string, endpoint: CodexModelEndpoint): string {
  const catalogPath = join(dir, 'model-catalog.json');
  const configPath = join(dir, 'config.toml');
  const catalog = modelCatalog(endpoint.model);
  const config = codexConfigToml(catalogPath, endpoint);
  const refuse = (why: string) =>
    new BatonError(
      'provider_error',
      `the Codex home ${dir} does not hold Baton's configuration (${why}); no Codex session is started on it`,
    );
  try {
    ensurePrivateDir(dir);
    ensureFileContent(catalogPath, catalog);
    ensureFileContent(configPath, config);
  } catch (error) {
    throw refuse(error instanceof Error ? error.message : String(error));
  }
  if (readFileOrNull(catalogPath) !== catalog || readFileOrNull(configPath) !== config)
    throw refuse('its files differ from what Baton wrote');
  return dir;
}
