import { rmSync } from 'node:fs';
import type { Store } from '../src/persistence/store.js';

/**
 * Closes a bench round's store and deletes its files. Dirty pages of a deleted file are
 * dropped, never written back: no later round's fsync (a WAL checkpoint's) then waits
 * behind the kernel writing out a round that is over.
 */
export function discardStore(store: Store): void {
  const path = store.db.name;
  store.close();
  discardFiles(path);
}

/** Deletes a closed SQLite database's files: the database, its WAL and its shared memory. */
export function discardFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}
