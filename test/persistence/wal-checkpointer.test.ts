import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Store } from '../../src/persistence/store.js';
import { startWalCheckpointer } from '../../src/persistence/wal-checkpointer.js';
import { until } from '../support/poll.js';
import { tempDir } from '../support/temp.js';

// The WAL is copied back into the database by a worker thread (its own connection), never by
// a commit on the event loop: the database file grows while the main connection only appends.

const folders: (() => void)[] = [];
afterEach(() => folders.splice(0).forEach((remove) => remove()));

function openStore() {
  const t = tempDir('baton-wal-');
  folders.push(t.cleanup);
  const path = join(t.dir, 'baton.sqlite');
  return { path, store: Store.open(path) };
}

/** About 4 MB in 2,000 small commits, far below the main connection's own checkpoint mark. */
function write(store: Store): void {
  store.db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT)');
  const insert = store.db.prepare('INSERT INTO filler (body) VALUES (?)');
  for (let i = 0; i < 2_000; i++) insert.run('x'.repeat(2_000));
}

it('the worker checkpoints what the main connection commits, and stopping it lets the WAL go with the last connection', async () => {
  const { path, store } = openStore();
  const checkpointer = startWalCheckpointer(store.db, { everyMs: 20 });
  const before = statSync(path).size;
  write(store);
  // Only a checkpoint moves the pages into the database file.
  await until(() => statSync(path).size > before + 3_000_000, 'the worker to checkpoint the WAL', 10_000);
  expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(100_000);
  await checkpointer.stop();
  await checkpointer.stop();
  store.close();
  expect(existsSync(`${path}-wal`)).toBe(false);
  const again = Store.open(path);
  expect(again.db.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({ n: 2_000 });
  again.close();
});

it('without the worker the same commits leave the pages in the WAL (what the test above would see if the worker did nothing)', () => {
  const { path, store } = openStore();
  store.db.pragma('wal_autocheckpoint = 100000');
  const before = statSync(path).size;
  write(store);
  expect(statSync(path).size).toBeLessThan(before + 100_000);
  expect(statSync(`${path}-wal`).size).toBeGreaterThan(3_000_000);
  store.close();
});

it('a worker that could not start reports why, and stopping it afterwards returns at once', async () => {
  const { path, store } = openStore();
  const errors: string[] = [];
  // The database file goes before the worker opens it (the main connection keeps its own handle).
  const checkpointer = startWalCheckpointer(store.db, { onError: (e) => errors.push(e) });
  rmSync(path);
  await until(() => errors.length > 0, 'the worker to report its failure', 10_000);
  expect(errors[0]).toMatch(/unable to open|does not exist|SQLITE_CANTOPEN|directory does not exist/i);
  await checkpointer.stop();
  store.close();
});
