import Database from 'better-sqlite3';
import { BatonError } from '../domain/errors.js';
import type { Clock } from '../domain/sources.js';
import { systemClock } from '../domain/sources.js';
import { openDatabase, type Db } from './database.js';
import { migrate } from './migrations.js';
import { validateUnit, type CommitResult, type CommitUnit, type ValidUnit } from './commit-unit.js';
import { EventLog } from './event-log.js';
import { ReceiptTable } from './receipt-table.js';
import { EntityTable } from './entity-table.js';
import { ProjectionTables } from './projection-tables.js';
import { Outbox } from './outbox.js';
import { TimerTable } from './timer-table.js';
import { BindingTable } from './binding-table.js';

export interface StoreOptions {
  clock?: Clock;
}

/**
 * Baton's durable store on one SQLite file. `commit(unit)` is the only way state changes:
 * the unit's events, snapshots, projection changes, outbox rows, timers, bindings and
 * receipt land in one transaction or not at all.
 */
export class Store {
  readonly events: EventLog;
  readonly receipts: ReceiptTable;
  readonly entities: EntityTable;
  readonly projections: ProjectionTables;
  readonly outbox: Outbox;
  readonly timers: TimerTable;
  readonly bindings: BindingTable;
  private readonly clock: Clock;
  private readonly commitOne: (unit: ValidUnit) => CommitResult;
  /** Commits `count` units in one transaction; `unitAt(i)` gives the i-th, just before it is written. */
  private readonly commitBatch: (count: number, unitAt: (i: number) => ValidUnit) => CommitResult[];

  static open(path: string, options: StoreOptions = {}): Store {
    const db = openDatabase(path);
    try {
      migrate(db, (options.clock ?? systemClock).nowMs());
    } catch (error) {
      db.close();
      throw error;
    }
    return new Store(db, options);
  }

  private constructor(
    readonly db: Db,
    options: StoreOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.events = new EventLog(db);
    this.receipts = new ReceiptTable(db);
    this.entities = new EntityTable(db);
    this.projections = new ProjectionTables(db);
    this.outbox = new Outbox(db);
    this.timers = new TimerTable(db);
    this.bindings = new BindingTable(db);
    const one = db.transaction((unit: ValidUnit) =>
      this.withStaging(() => this.write(unit, this.events.lastSequence(), this.clock.nowMs())),
    );
    const many = db.transaction((count: number, unitAt: (i: number) => ValidUnit) =>
      this.withStaging(() => {
        let last = this.events.lastSequence();
        // One transaction, one time of commit for the units that carry none of their own.
        const now = this.clock.nowMs();
        const results: CommitResult[] = [];
        for (let i = 0; i < count; i++) {
          const result = this.write(unitAt(i), last, now);
          last = result.lastSequence;
          results.push(result);
        }
        return results;
      }),
    );
    this.commitOne = (unit) => this.settled(() => one.immediate(unit));
    this.commitBatch = (count, unitAt) => this.settled(() => many.immediate(count, unitAt));
  }

  /** Runs a transaction, then tells the log and the projections whether what they wrote was committed. */
  private settled<T>(transaction: () => T): T {
    let result: T;
    try {
      result = transaction();
    } catch (error) {
      this.events.rolledBack();
      this.projections.rolledBack();
      throw error;
    }
    this.events.committed();
    this.projections.committed();
    return result;
  }

  /** Commits one unit atomically. A unit whose receipt's commandId exists writes nothing. */
  commit(unit: CommitUnit): CommitResult {
    const valid = validateUnit(unit);
    return asTypedConflict(() => this.commitOne(valid));
  }

  /**
   * Group commit: many units in one transaction (each still deduplicated by its receipt).
   * Each unit is validated just before it is written, inside the transaction: a bad unit
   * rolls the whole group back, as if it had been refused before, and the group's strings
   * die young instead of all living until its end.
   */
  commitMany(units: readonly CommitUnit[]): CommitResult[] {
    return asTypedConflict(() => this.commitBatch(units.length, (i) => validateUnit(units[i]!)));
  }

  /**
   * Group commit with per-unit isolation, for the CommitQueue: optimistically one
   * transaction (one WAL commit) for all units; if any unit fails inside the transaction
   * (a binding conflict, a lost lease), the group is retried one unit per transaction so
   * only the failing unit is refused. Savepoints per unit would cost more than they save.
   */
  commitIsolated(units: readonly ValidUnit[]): IsolatedResult[] {
    try {
      return this.commitBatch(units.length, (i) => units[i]!).map((result) => ({ ok: true, result }));
    } catch {
      return units.map((unit) => {
        try {
          return { ok: true, result: this.commitOne(unit) };
        } catch (error) {
          return { ok: false, error: toTypedConflict(error) };
        }
      });
    }
  }

  lastSequence(): number {
    return this.events.lastSequence();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * Runs `writeAll` inside a transaction and then writes the rows it staged: events, entity
   * snapshots and projection upserts go in as multi-row inserts, one statement per table
   * and up to 128 rows, instead of one per row (a full 128-row chunk is written as soon as
   * it fills). If anything fails the staged rows are forgotten with the transaction.
   */
  private withStaging<T>(writeAll: () => T): T {
    try {
      const result = writeAll();
      this.events.flush();
      this.entities.flush();
      this.projections.flush();
      return result;
    } catch (error) {
      this.events.discard();
      this.entities.discard();
      this.projections.discard();
      throw error;
    }
  }

  /**
   * Writes or stages one unit's rows. Staging changes nothing any later write in the
   * transaction reads: the tables staged are only read by the store's readers, except
   * that an effect's causation must be in the event log, so effects flush events first.
   */
  private write(unit: ValidUnit, last: number, now: number): CommitResult {
    const at = unit.at ?? now;
    // The receipt goes in first (with the sequence its unit will end at): its insert is the
    // duplicate check, and a duplicate's unit writes nothing else.
    if (unit.receipt && !this.receipts.add(unit.receipt, last + unit.events.length, at))
      return { duplicate: true, lastSequence: last, receipt: this.receipts.get(unit.receipt.commandId)! };
    const sequence = this.events.append(unit.events, last, at);
    for (const s of unit.snapshots) this.entities.put(s, sequence, at);
    for (const p of unit.projections) this.projections.apply(p, sequence);
    if (unit.effects.length) this.events.flush();
    for (const e of unit.effects) this.outbox.add(e, at);
    for (const u of unit.effectUpdates) this.outbox.update(u, at);
    for (const t of unit.timers) this.timers.apply(t, at);
    for (const b of unit.bindings) this.bindings.put(b, sequence);
    return { duplicate: false, lastSequence: sequence, firstSequence: unit.events.length ? last + 1 : null, at };
  }
}

export type IsolatedResult = { ok: true; result: CommitResult } | { ok: false; error: unknown };

/** A constraint the schema enforces (a reused eventId, a dangling causation) is a typed conflict. */
function toTypedConflict(error: unknown): unknown {
  if (error instanceof Database.SqliteError && error.code.startsWith('SQLITE_CONSTRAINT')) {
    return new BatonError('conflict', `commit refused: ${error.message}`, { sqliteCode: error.code });
  }
  return error;
}

function asTypedConflict<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw toTypedConflict(error);
  }
}
