import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../persistence/private-file.js';

/** The folders Baton writes under its data dir: made 0700 up front, so whatever child processes create inside them (Codex's and Claude's sessions, git's objects) is reachable by the owner alone. */
const OWN_DIRS = ['codex', 'claude', 'acp', 'checkpoints', 'workspaces'];

/**
 * Makes the data dir private to its owner, whatever the process umask: the dir and Baton's
 * folders in it 0700 (also when they existed as 0755), and its own files 0600. The SQLite
 * file is created 0600 before SQLite first opens it, because SQLite gives its `-wal` and
 * `-shm` files the main file's mode. The process umask is left alone on purpose: Codex
 * and git also write the user's workspace files, whose modes must stay the user's.
 */
export function preparePrivateDataDir(dataDir: string, databasePath: string): void {
  ensurePrivateDir(dataDir);
  for (const dir of OWN_DIRS) ensurePrivateDir(join(dataDir, dir));
  if (!existsSync(databasePath)) closeSync(openSync(databasePath, 'a', 0o600));
  for (const file of [databasePath, `${databasePath}-wal`, `${databasePath}-shm`, join(dataDir, 'token')]) {
    if (existsSync(file)) chmodSync(file, 0o600);
  }
}
