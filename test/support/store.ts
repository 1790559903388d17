import { join } from 'node:path';
import { afterEach } from 'vitest';
import { ManualClock } from '../../src/domain/sources.js';
import { Store } from '../../src/persistence/store.js';
import { tempDir } from './temp.js';

/**
 * Opens a Store on a real SQLite file in a fresh temp folder with a manual clock;
 * the file and the store are closed and removed after each test.
 */
export function useTempStore(): () => { store: Store; clock: ManualClock; path: string; reopen: () => Store } {
  const opened: { store: Store; cleanup: () => void }[] = [];
  afterEach(() => {
    for (const o of opened.splice(0)) {
      o.store.close();
      o.cleanup();
    }
  });
  return () => {
    const t = tempDir();
    const path = join(t.dir, 'baton.sqlite');
    const clock = new ManualClock();
    const entry = { store: Store.open(path, { clock }), cleanup: t.cleanup };
    opened.push(entry);
    return {
      store: entry.store,
      clock,
      path,
      reopen: () => {
        entry.store.close();
        entry.store = Store.open(path, { clock });
        return entry.store;
      },
    };
  };
}

/** Counts rows of every durable table: "writes nothing" means these do not change. */
export function tableCounts(store: Store): Record<string, number> {
  const tables = [
    'events',
    'command_receipts',
    'entities',
    'outbox',
    'timers',
    'identity_bindings',
    'proj_runs',
    'proj_threads',
  ];
  return Object.fromEntries(
    tables.map((t) => [t, (store.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]),
  );
}
