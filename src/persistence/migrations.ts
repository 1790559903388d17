import { BatonError } from '../domain/errors.js';
import type { Db } from './database.js';

/**
 * Forward-only, versioned schema changes. A migration is never edited once released:
 * add a new one. Each runs in its own transaction with its version row.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const projectionTable = (name: string) => `
CREATE TABLE proj_${name} (
  id TEXT PRIMARY KEY,
  thread_id TEXT,
  ord INTEGER NOT NULL DEFAULT 0,
  data TEXT NOT NULL,
  sequence INTEGER NOT NULL
);
CREATE INDEX proj_${name}_thread ON proj_${name} (thread_id, ord);`;

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'event log, receipts, entities, projections, outbox, timers, bindings',
    sql: `
CREATE TABLE events (
  sequence INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL UNIQUE,
  command_id TEXT,
  causation_id TEXT,
  thread_id TEXT NOT NULL,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX events_thread ON events (thread_id, sequence);

CREATE TABLE command_receipts (
  command_id TEXT PRIMARY KEY,
  command_type TEXT NOT NULL,
  thread_id TEXT,
  ok INTEGER NOT NULL,
  sequence INTEGER NOT NULL,
  body TEXT NOT NULL,
  at INTEGER NOT NULL
);

CREATE TABLE entities (
  entity_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  thread_id TEXT,
  machine_id TEXT NOT NULL,
  machine_version INTEGER NOT NULL,
  snapshot TEXT NOT NULL,
  last_sequence INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

${['threads', 'runs', 'messages', 'turn_items', 'graph_nodes', 'requests', 'sessions', 'checkpoints', 'plans'].map(projectionTable).join('\n')}

CREATE TABLE outbox (
  effect_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending','running','completed','failed','cancelled')),
  thread_id TEXT NOT NULL,
  run_id TEXT,
  node_id TEXT,
  provider TEXT,
  payload TEXT NOT NULL,
  causation_event_id TEXT REFERENCES events (event_id),
  command_id TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  available_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX outbox_claimable ON outbox (status, available_at);
CREATE INDEX outbox_thread ON outbox (thread_id, status);

CREATE TABLE timers (
  timer_id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL,
  entity_id TEXT,
  due_at INTEGER NOT NULL,
  event TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending','fired','cancelled')),
  created_at INTEGER NOT NULL
);
CREATE INDEX timers_due ON timers (status, due_at);

CREATE TABLE identity_bindings (
  provider TEXT NOT NULL,
  scope TEXT NOT NULL,
  native_ref TEXT NOT NULL,
  app_id TEXT NOT NULL,
  entity_kind TEXT NOT NULL,
  correlation TEXT NOT NULL,
  created_sequence INTEGER NOT NULL,
  PRIMARY KEY (provider, scope, native_ref)
);
CREATE INDEX identity_bindings_app ON identity_bindings (app_id);
`,
  },
  { version: 2, name: 'the activities read model', sql: projectionTable('activities') },
  {
    // A streamed delta appends a chunk here instead of rewriting its whole row (issue 12):
    // the row's text is its stored text followed by its chunks, in chunk order. A full
    // write of the row folds them in and deletes them.
    version: 3,
    name: 'appended text chunks of projection rows',
    sql: `
CREATE TABLE proj_text_chunks (
  chunk INTEGER PRIMARY KEY,
  projection TEXT NOT NULL,
  row_id TEXT NOT NULL,
  field TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX proj_text_chunks_row ON proj_text_chunks (projection, row_id, chunk);
`,
  },
  {
    version: 4,
    name: 'the context transfer and handoff read models',
    sql: projectionTable('context_transfers') + projectionTable('context_handoffs'),
  },
  { version: 5, name: 'the delegated tasks read model (their wake-ups)', sql: projectionTable('delegated_tasks') },
  {
    version: 6,
    // The console's actors query reads one thread's entities: a full scan took 129 ms on 200k rows.
    // On thread_id alone, so an entity's update (which never changes its thread) leaves the index be.
    name: "entities by thread (the console's actors query)",
    sql: 'CREATE INDEX entities_thread ON entities (thread_id);',
  },
  {
    version: 7,
    // Sequences name positions, not facts: sequence 40 of another data dir's log is another
    // event. A client resuming names the log its cursor is in, and another log refuses it.
    name: "the event log's identity",
    sql: `
CREATE TABLE event_log_identity (id TEXT NOT NULL);
INSERT INTO event_log_identity (id) VALUES ('log_' || lower(hex(randomblob(16))));`,
  },
];

export const latestSchemaVersion = migrations[migrations.length - 1]!.version;

export function currentSchemaVersion(db: Db): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/** Applies every migration newer than the file's version; returns the versions applied. */
export function migrate(db: Db, nowMs: number, list: readonly Migration[] = migrations): number[] {
  const from = currentSchemaVersion(db);
  const newest = list[list.length - 1]?.version ?? 0;
  if (from > newest) {
    throw new BatonError('schema_too_new', `database schema v${from} is newer than this Baton (v${newest})`, {
      databaseVersion: from,
      supportedVersion: newest,
    });
  }
  const applied: number[] = [];
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of list) {
    if (m.version <= from) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, nowMs);
    }).immediate();
    applied.push(m.version);
  }
  return applied;
}
