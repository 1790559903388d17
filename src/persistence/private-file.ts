import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, basename } from 'node:path';

/**
 * Files Baton keeps in its data dir hold whole conversations and credentials: they are
 * made for the owner alone (0700 folders, 0600 files), whatever the process umask.
 */

/** Makes a folder (and its parents) and narrows the folder itself to 0700, also when it existed. */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

/**
 * Writes a file whole or not at all: a temporary file beside it (0600) renamed over it.
 * A reader in another process (an agent starting up) sees the old content or the new,
 * never an empty or half-written file.
 */
export function writePrivateFileAtomic(path: string, content: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, content, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** The file's content, or null when it cannot be read. */
export function readFileOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Writes the file atomically only if it does not already hold `content`; true when it wrote. */
export function ensureFileContent(path: string, content: string): boolean {
  if (readFileOrNull(path) === content) {
    chmodSync(path, 0o600);
    return false;
  }
  writePrivateFileAtomic(path, content);
  return true;
}
