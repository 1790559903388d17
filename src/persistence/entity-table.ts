import type { Statement } from 'better-sqlite3';
import type { EntityKind } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';
import type { Db } from './database.js';
import type { ValidUnit } from './commit-unit.js';

/** One persisted actor: its machine, the machine's version and its XState snapshot. */
export interface EntityRecord {
  entityId: string;
  kind: EntityKind;
  threadId: string | null;
  machineId: string;
  machineVersion: number;
  snapshot: unknown;
  lastSequence: number;
  updatedAt: number;
}

interface EntityRow {
  entity_id: string;
  kind: EntityKind;
  thread_id: string | null;
  machine_id: string;
  machine_version: number;
  snapshot: string;
  last_sequence: number;
  updated_at: number;
}

const toRecord = (r: EntityRow): EntityRecord => ({
  entityId: r.entity_id,
  kind: r.kind,
  threadId: r.thread_id,
  machineId: r.machine_id,
  machineVersion: r.machine_version,
  snapshot: JSON.parse(r.snapshot),
  lastSequence: r.last_sequence,
  updatedAt: r.updated_at,
});

/** Entity snapshot rows: each actor is its own row, never one giant tree snapshot. */
export class EntityTable {
  private readonly upsert: Statement;
  private readonly byId: Statement<[string], EntityRow>;
  private readonly countAll: Statement<[], { n: number }>;

  constructor(db: Db) {
    // An entity's kind and thread never change: a row is only ever updated by its own entity.
    this.upsert = db.prepare(`INSERT INTO entities (entity_id, kind, thread_id, machine_id, machine_version, snapshot, last_sequence, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (entity_id) DO UPDATE SET machine_id = excluded.machine_id,
        machine_version = excluded.machine_version, snapshot = excluded.snapshot, last_sequence = excluded.last_sequence,
        updated_at = excluded.updated_at
      WHERE entities.kind = excluded.kind AND entities.thread_id IS excluded.thread_id`);
    this.byId = db.prepare('SELECT * FROM entities WHERE entity_id = ?');
    this.countAll = db.prepare('SELECT count(*) AS n FROM entities');
  }

  /** Inserts or updates an entity's row; a row of another kind or thread under that id is a typed conflict. */
  put(s: ValidUnit['snapshots'][number], sequence: number, at: number): void {
    const { changes } = this.upsert.run(s.entityId, s.kind, s.threadId, s.machineId, s.machineVersion, s.snapshotJson, sequence, at);
    if (changes === 0) {
      const held = this.get(s.entityId);
      throw new BatonError('conflict', `entity id ${s.entityId} belongs to ${held?.kind} of thread ${held?.threadId}: refused as ${s.kind} of thread ${s.threadId}`, {
        entityId: s.entityId,
        held: held && { kind: held.kind, threadId: held.threadId },
      });
    }
  }

  get(entityId: string): EntityRecord | null {
    const row = this.byId.get(entityId);
    return row ? toRecord(row) : null;
  }

  count(): number {
    return this.countAll.get()?.n ?? 0;
  }
}
