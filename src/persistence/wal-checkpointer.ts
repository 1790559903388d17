import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

/**
 * Checkpoints the WAL from a worker thread with a connection of its own, so copying the WAL
 * back into the database (and the fsync that ends it) never runs inside a commit on the event
 * loop. Measured with SQLite's own autocheckpoint at 10,000 pages: one command in about 1,100
 * took 70 to 120 ms, the checkpoint's, where the others took 0.3 ms. A PASSIVE checkpoint
 * takes no lock a writer needs, so commits go on meanwhile.
 *
 * The main connection keeps a far larger autocheckpoint as a backstop: were the worker gone,
 * the WAL would still not grow without bound.
 */
export interface WalCheckpointer {
  /** Stops the worker and closes its connection (before the main connection closes, so the WAL is removed). */
  stop(): Promise<void>;
}

/** The main connection checkpoints by itself only past this many pages (~400 MB): the worker's missing. */
const BACKSTOP_PAGES = 100_000;

// Plain CommonJS, run by the worker as is: no loader, no TypeScript.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.path, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
} catch (error) {
  // Said as text: a SqliteError does not survive the trip between threads as an Error.
  parentPort.postMessage({ error: String(error) });
  process.exit(1);
}
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
};
const beat = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(beat);
  db.close();
  parentPort.close();
});
`;

export function startWalCheckpointer(
  db: Db,
  options: { everyMs?: number; onError?: (message: string) => void } = {},
): WalCheckpointer {
  db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: {
      path: db.name,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      everyMs: options.everyMs ?? 1_000,
    },
  });
  // It never keeps Baton alive by itself.
  worker.unref();
  worker.on('message', (m: { error?: string }) => m.error && options.onError?.(m.error));
  // An error thrown in the worker arrives cloned: its message, not always an Error.
  worker.on('error', (error: unknown) => options.onError?.((error as { message?: string })?.message ?? String(error)));
  let alive = true;
  worker.once('exit', () => (alive = false));
  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopped ??= (async () => {
        // A worker that died already (its error was reported) has nothing left to stop.
        if (!alive) return;
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        // Waited on now: held, or a loop with nothing else to do would end before it exits.
        worker.ref();
        worker.postMessage('stop');
        await exited;
      })();
      return stopped;
    },
  };
}
