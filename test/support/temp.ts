import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(prefix = 'baton-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Temp folders made inside tests (where vitest hooks cannot be registered), removed when
 * `removeAll` runs: call it from a top-level afterAll/afterEach.
 */
export class TempFolders {
  private readonly made: (() => void)[] = [];
  make(prefix?: string): string {
    const t = tempDir(prefix);
    this.made.push(t.cleanup);
    return t.dir;
  }
  removeAll(): void {
    for (const remove of this.made.splice(0)) remove();
  }
}
