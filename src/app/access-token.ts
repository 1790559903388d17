import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { writePrivateFileAtomic } from '../persistence/private-file.js';

/** The token from the environment, else the one stored in the data dir, else a new one (stored). */
export function resolveToken(config: Config): string {
  if (config.token) return config.token;
  const file = join(config.dataDir, 'token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  writePrivateFileAtomic(file, `${token}\n`);
  return token;
}
