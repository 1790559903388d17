import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codexBinaryPath } from '../src/providers/codex/codex-binary.js';

/**
 * `npm run codex:types`: regenerates src/providers/codex/protocol from the installed Codex
 * (`codex app-server generate-ts`), the exact protocol of the pinned version. Relative
 * imports get `.js` extensions so the files type-check as ES modules; nothing else changes.
 */
const out = fileURLToPath(new URL('../src/providers/codex/protocol/', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'codex-ts-'));
execFileSync(codexBinaryPath(), ['app-server', 'generate-ts', '--out', tmp], { stdio: 'inherit' });
rmSync(out, { recursive: true, force: true });

const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
  const p = join(dir, name);
  return statSync(p).isDirectory() ? walk(p) : [p];
});
let files = 0;
for (const file of walk(tmp)) {
  const target = join(out, relative(tmp, file));
  mkdirSync(dirname(target), { recursive: true });
  // A specifier naming a folder means its index.
  const text = readFileSync(file, 'utf8').replace(/from "(\.{1,2}\/[^"]+)"/g, (_m, path: string) => {
    const folder = (() => {
      try {
        return statSync(join(dirname(file), path)).isDirectory();
      } catch {
        return false;
      }
    })();
    return `from "${path}${folder ? '/index' : ''}.js"`;
  });
  writeFileSync(target, text);
  files += 1;
}
rmSync(tmp, { recursive: true, force: true });
console.log(`wrote ${files} files to ${relative(process.cwd(), out)}`);
