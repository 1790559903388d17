import type { Statement } from 'better-sqlite3';
import type { EntityKind } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';
import type { Db } from './database.js';
import type { ValidUnit } from './commit-unit.js';
import { MultiRowInsert, type RowShape } from './multi-row-insert.js';

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

/**
 * An entity's row, in the order `put` stages its values. An entity's kind and thread never
 * change: a row is only ever updated by its own entity, and one of another kind or thread
 * under the same id is left as it was (the WHERE), which the table refuses as a conflict.
 */
export const entityRow: RowShape = {
  head: 'INSERT INTO entities (entity_id, kind, thread_id, machine_id, machine_version, snapshot, last_sequence, updated_at)',
  width: 8,
  tail: `ON CONFLICT (entity_id) DO UPDATE SET machine_id = excluded.machine_id,
    machine_version = excluded.machine_version, snapshot = excluded.snapshot, last_sequence = excluded.last_sequence,
    updated_at = excluded.updated_at
  WHERE entities.kind = excluded.kind AND entities.thread_id IS excluded.thread_id`,
};

/** Entity snapshot rows: each actor is its own row, never one giant tree snapshot. */
export class EntityTable {
  private readonly upsert: MultiRowInsert;
  private readonly byId: Statement<[string], EntityRow>;
  private readonly countAll: Statement<[], { n: number }>;

  constructor(db: Db) {
    this.upsert = new MultiRowInsert(db, entityRow, (values, changes) => this.refuseSkipped(values, changes));
    this.byId = db.prepare('SELECT * FROM entities WHERE entity_id = ?');
    this.countAll = db.prepare('SELECT count(*) AS n FROM entities');
  }

  /** Stages an insert or update of an entity's row; `flush` writes it. */
  put(s: ValidUnit['snapshots'][number], sequence: number, at: number): void {
    this.upsert.row().push(s.entityId, s.kind, s.threadId, s.machineId, s.machineVersion, s.snapshotJson, sequence, at);
  }

  /** Writes the staged rows. Call inside the transaction that staged them. */
  flush(): void {
    this.upsert.flush();
  }

  /**
   * A row of another kind or thread under a written id is left as it was (the upsert's
   * WHERE), so fewer rows change than were written: a typed conflict naming the first
   * written row that does not match what the table holds.
   */
  private refuseSkipped(values: readonly unknown[], changes: number): void {
    if (changes === values.length / 8) return;
    for (let i = 0; i < values.length; i += 8) {
      const entityId = String(values[i]);
      const held = this.get(entityId);
      if (held && held.kind === values[i + 1] && held.threadId === values[i + 2]) continue;
      throw new BatonError(
        'conflict',
        `entity id ${entityId} belongs to ${held?.kind} of thread ${held?.threadId}: refused as ${String(values[i + 1])} of thread ${String(values[i + 2])}`,
        {
          entityId,
          held: held && { kind: held.kind, threadId: held.threadId },
        },
      );
    }
  }

  discard(): void {
    this.upsert.discard();
  }

  get(entityId: string): EntityRecord | null {
    const row = this.byId.get(entityId);
    return row ? toRecord(row) : null;
  }

  count(): number {
    return this.countAll.get()?.n ?? 0;
  }
}
