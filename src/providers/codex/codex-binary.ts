import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BatonError } from '../../domain/errors.js';

const require = createRequire(import.meta.url);

const targets: Record<string, { pkg: string; triple: string }> = {
  'linux-x64': { pkg: '@openai/codex-linux-x64', triple: 'x86_64-unknown-linux-musl' },
  'linux-arm64': { pkg: '@openai/codex-linux-arm64', triple: 'aarch64-unknown-linux-musl' },
  'darwin-x64': { pkg: '@openai/codex-darwin-x64', triple: 'x86_64-apple-darwin' },
  'darwin-arm64': { pkg: '@openai/codex-darwin-arm64', triple: 'aarch64-apple-darwin' },
};

/**
 * The native `codex` binary from the pinned platform package. Baton spawns it directly,
 * not through the JS shim, because the shim does not forward signals.
 */
export function codexBinaryPath(platform = process.platform, arch = process.arch): string {
  const target = targets[`${platform}-${arch}`];
  if (!target) throw new BatonError('unsupported', `no Codex binary for ${platform}-${arch}`);
  try {
    const root = dirname(require.resolve(`${target.pkg}/package.json`));
    return join(root, 'vendor', target.triple, 'bin', 'codex');
  } catch {
    throw new BatonError(
      'unsupported',
      `${target.pkg} is not installed (it comes with @openai/codex as an optional dependency)`,
    );
  }
}
