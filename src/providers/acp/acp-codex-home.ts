import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BatonError } from '../../domain/errors.js';
import { ensureFileContent, ensurePrivateDir, readFileOrNull } from '../../persistence/private-file.js';
import { codexBinaryPath } from '../codex/codex-binary.js';
import { codexConfigToml, type CodexModelEndpoint } from '../codex/codex-home.js';

/**
 * The CODEX_HOME of a `codex-acp` agent: Baton's Codex configuration (codex-home.ts), one
 * Responses-API endpoint and nothing else. `codex-acp` 0.16.0 embeds an older Codex core
 * than Baton's pinned `@openai/codex`: its model catalog entries also need
 * `supports_reasoning_summaries` and `supports_parallel_tool_calls` (measured: without them
 * it refuses the catalog and exits; without any catalog every reply begins with a "model
 * metadata not found" notice as agent text).
 */

let bundled: { models: Record<string, unknown>[] } | null = null;

function acpModelCatalog(model: string): string {
  bundled ??= JSON.parse(execFileSync(codexBinaryPath(), ['debug', 'models', '--bundled'], { encoding: 'utf8' })) as {
    models: Record<string, unknown>[];
  };
  const plain = bundled.models.find((m) => m.tool_mode == null && m.use_responses_lite !== true) ?? bundled.models[0]!;
  const entry = {
    ...plain,
    slug: model,
    display_name: model,
    apply_patch_tool_type: 'freeform',
    visibility: 'list',
    supports_reasoning_summaries: false,
    supports_parallel_tool_calls: false,
  };
  return JSON.stringify({ models: [entry] });
}

/** Writes (if it differs) and checks the agent's Codex home; a home that does not hold it is a typed refusal. */
export function ensureAcpCodexHome(dir: string, endpoint: CodexModelEndpoint): string {
  const catalogPath = join(dir, 'model-catalog.json');
  const configPath = join(dir, 'config.toml');
  const catalog = acpModelCatalog(endpoint.model);
  const config = codexConfigToml(catalogPath, endpoint);
  try {
    ensurePrivateDir(dir);
    ensureFileContent(catalogPath, catalog);
    ensureFileContent(configPath, config);
  } catch (error) {
    throw new BatonError('provider_error', `cannot write the codex-acp home ${dir}: ${String(error)}`);
  }
  if (readFileOrNull(catalogPath) !== catalog || readFileOrNull(configPath) !== config)
    throw new BatonError('provider_error', `the codex-acp home ${dir} does not hold Baton's configuration`);
  return dir;
}
