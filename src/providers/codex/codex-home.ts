import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CodexModelEndpoint {
  /** A Responses API base URL, e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  model: string;
  /** How long a silent stream may idle before Codex gives up on it. */
  streamIdleTimeoutMs?: number;
}

const toml = (s: string) => JSON.stringify(s);

/**
 * Writes a per-session CODEX_HOME whose config points Codex at one Responses-API model
 * endpoint with no retries, no update checks, no analytics and no plugins: a Codex that
 * talks only to the endpoint it is given.
 */
export function writeCodexHome(dir: string, endpoint: CodexModelEndpoint): string {
  mkdirSync(dir, { recursive: true });
  const config = [
    `model = ${toml(endpoint.model)}`,
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
