import { z } from 'zod';
import { resolve } from 'node:path';
import { parseOrThrow } from './domain/errors.js';
import { OriginList } from './server/origin-policy.js';

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
