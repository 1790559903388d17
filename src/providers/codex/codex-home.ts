import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codexBinaryPath } from './codex-binary.js';

export interface CodexModelEndpoint {
  /** A Responses API base URL, e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  model: string;
  /** How long a silent stream may idle before Codex gives up on it. */
  streamIdleTimeoutMs?: number;
}

const toml = (s: string) => JSON.stringify(s);

let bundled: { models: Record<string, unknown>[] } | null = null;

/**
 * A model catalog naming the endpoint's model, so Codex knows its metadata (no fallback
 * warnings) and offers it `apply_patch` as a freeform tool. The entry is Codex's own bundled
 * metadata of a plain Responses-API model (`codex debug models --bundled`), renamed.
 */
function modelCatalog(model: string): string {
  bundled ??= JSON.parse(execFileSync(codexBinaryPath(), ['debug', 'models', '--bundled'], { encoding: 'utf8' })) as { models: Record<string, unknown>[] };
  const plain = bundled.models.find((m) => m.tool_mode == null && m.use_responses_lite !== true) ?? bundled.models[0]!;
  return JSON.stringify({ models: [{ ...plain, slug: model, display_name: model, apply_patch_tool_type: 'freeform', visibility: 'list' }] });
}

/**
 * Writes a per-session CODEX_HOME whose config points Codex at one Responses-API model
 * endpoint with no retries, no update checks, no analytics and no plugins: a Codex that
 * talks only to the endpoint it is given.
 */
export function writeCodexHome(dir: string, endpoint: CodexModelEndpoint): string {
  mkdirSync(dir, { recursive: true });
  const catalog = join(dir, 'model-catalog.json');
  writeFileSync(catalog, modelCatalog(endpoint.model));
  const config = [
    `model = ${toml(endpoint.model)}`,
    `model_catalog_json = ${toml(catalog)}`,
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
    '',
    '[tools.update_plan]',
    'enabled = true',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'config.toml'), config);
  return dir;
}
