import { databasePath, loadConfig } from './config.js';
import { toErrorInfo } from './domain/errors.js';
import { currentSchemaVersion } from './persistence/migrations.js';
import { Store } from './persistence/store.js';

/**
 * `npm start`: opens Baton's durable store on its embedded defaults and reports its state.
 * The Socket.IO server (issue 6) will be started from here.
 */
function main(): void {
  const config = loadConfig();
  const path = databasePath(config);
  const store = Store.open(path);
  try {
    const count = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
    console.log(`Baton store ready: ${path}`);
    console.log(`  schema version   ${currentSchemaVersion(store.db)}`);
    console.log(`  last sequence    ${store.lastSequence()}`);
    console.log(`  threads          ${count('SELECT count(*) AS n FROM proj_threads')}`);
    console.log(`  entities         ${store.entities.count()}`);
    console.log(`  pending effects  ${count("SELECT count(*) AS n FROM outbox WHERE status IN ('pending','running')")}`);
    console.log('The Socket.IO server is not built yet; this command only opens and checks the store.');
  } finally {
    store.close();
  }
}

try {
  main();
} catch (error) {
  const info = toErrorInfo(error);
  console.error(`baton: ${info.code}: ${info.message}`);
  process.exitCode = 1;
}
