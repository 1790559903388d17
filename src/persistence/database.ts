import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Db = Database.Database;

/**
 * Opens a SQLite file the way every Baton store needs it: WAL for concurrent readers,
 * synchronous=NORMAL (a crash loses at most the last transactions, never consistency),
 * foreign keys enforced, and a busy timeout so a second process waits instead of failing.
 */
export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Checkpoint the WAL into the database every ~40 MB rather than every 4 MB: a checkpoint
  // runs inside whichever commit crosses the mark, so rarer ones keep commit latency flat.
  db.pragma('wal_autocheckpoint = 10000');
  return db;
}
