import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDatabase } from '../../src/persistence/database.js';
import { currentSchemaVersion, latestSchemaVersion, migrate, migrations } from '../../src/persistence/migrations.js';
import { Store } from '../../src/persistence/store.js';
import { BatonError } from '../../src/domain/errors.js';
import { tempDir } from '../support/temp.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function dbPath(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return join(t.dir, 'baton.sqlite');
}

describe('migrations', () => {
  it('build every table from an empty file with WAL, NORMAL sync and foreign keys', () => {
    const db = openDatabase(dbPath());
    expect(migrate(db, 1)).toEqual(migrations.map((m) => m.version));
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (r) => r.name,
    );
    expect(tables).toEqual(
      expect.arrayContaining([
        'events',
        'command_receipts',
        'entities',
        'outbox',
        'timers',
        'identity_bindings',
        'proj_threads',
        'proj_runs',
      ]),
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });

  it('re-run idempotently: a second run and a reopen apply nothing', () => {
    const path = dbPath();
    const db = openDatabase(path);
    migrate(db, 1);
    expect(migrate(db, 2)).toEqual([]);
    db.close();
    const store = Store.open(path);
    expect(currentSchemaVersion(store.db)).toBe(latestSchemaVersion);
    const rows = store.db.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number };
    expect(rows.n).toBe(migrations.length);
    store.close();
  });

  it('give each event log a name of its own once, kept across reopens and upgrades', () => {
    const path = dbPath();
    // A database from before the log had a name (schema v6), with an event in its log.
    const db = openDatabase(path);
    migrate(db, 1, migrations.slice(0, 6));
    db.prepare(
      "INSERT INTO events (sequence, event_id, thread_id, type, payload, at) VALUES (1, 'evt_1', 'thr_1', 'thread.created', '{}', 1)",
    ).run();
    db.close();
    const upgraded = Store.open(path);
    const logId = upgraded.events.id;
    expect(logId).toMatch(/^log_[0-9a-f]{32}$/);
    expect(upgraded.lastSequence()).toBe(1);
    upgraded.close();
    const reopened = Store.open(path);
    expect(reopened.events.id).toBe(logId);
    reopened.close();
    const another = Store.open(dbPath());
    expect(another.events.id).not.toBe(logId);
    another.close();
  });

  it('apply only the newer migrations, forward only', () => {
    const db = openDatabase(dbPath());
    migrate(db, 1);
    const next = [
      ...migrations,
      { version: latestSchemaVersion + 1, name: 'add a column', sql: 'ALTER TABLE events ADD COLUMN note TEXT' },
    ];
    expect(migrate(db, 2, next)).toEqual([latestSchemaVersion + 1]);
    expect(migrate(db, 3, next)).toEqual([]);
    db.close();
  });

  it('refuse a database written by a newer Baton with a typed error', () => {
    const path = dbPath();
    const db = openDatabase(path);
    migrate(db, 1, [...migrations, { version: 999, name: 'future', sql: 'SELECT 1' }]);
    db.close();
    try {
      Store.open(path);
      expect.unreachable('a newer schema must be refused');
    } catch (error) {
      expect(error).toBeInstanceOf(BatonError);
      expect((error as BatonError).code).toBe('schema_too_new');
    }
  });

  it('roll back a failing migration whole', () => {
    const db = openDatabase(dbPath());
    migrate(db, 1);
    const broken = [
      ...migrations,
      { version: latestSchemaVersion + 1, name: 'broken', sql: 'CREATE TABLE x (a); INSERT INTO nope VALUES (1);' },
    ];
    expect(() => migrate(db, 2, broken)).toThrow();
    expect(currentSchemaVersion(db)).toBe(latestSchemaVersion);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'x'").get()).toEqual({ n: 0 });
    db.close();
  });
});
