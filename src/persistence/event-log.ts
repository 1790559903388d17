import type { Statement } from 'better-sqlite3';
import type { DomainEvent } from '../domain/events.js';
import type { Db } from './database.js';
import type { ValidUnit } from './commit-unit.js';
import { MultiRowInsert, type RowShape } from './multi-row-insert.js';

interface EventRow {
  sequence: number;
  event_id: string;
  command_id: string | null;
  causation_id: string | null;
  thread_id: string;
  type: string;
  payload: string;
  at: number;
}

const toEvent = (row: EventRow): DomainEvent =>
  ({
    sequence: row.sequence,
    eventId: row.event_id,
    commandId: row.command_id,
    causationId: row.causation_id,
    threadId: row.thread_id,
    type: row.type,
    payload: JSON.parse(row.payload),
    at: row.at,
  }) as DomainEvent;

/** An event's row, in the order `append` stages its values. */
export const eventRow: RowShape = {
  head: 'INSERT INTO events (sequence, event_id, command_id, causation_id, thread_id, type, payload, at)',
  width: 8,
};

/**
 * The append-only log with one global sequence. The writer assigns `last + 1` inside the
 * write transaction, so the sequence is gap-free: a rolled-back unit leaves no number used.
 */
export class EventLog {
  /**
   * This log's own name, made when its file was: a cursor (a sequence) means something only
   * in the log that gave it, so a client resuming says which log that was.
   */
  readonly id: string;
  private readonly insert: MultiRowInsert;
  private readonly last: Statement<[], { s: number | null }>;
  private readonly after: Statement<[number, number], EventRow>;
  private readonly threadAfter: Statement<[string, number, number], EventRow>;
  private committedLast: number | null = null;
  /** The end of the log as the open transaction leaves it (null: it appended nothing). */
  private stagedLast: number | null = null;

  constructor(db: Db) {
    this.id = db.prepare<[], string>('SELECT id FROM event_log_identity').pluck().get()!;
    this.insert = new MultiRowInsert(db, eventRow);
    this.last = db.prepare('SELECT max(sequence) AS s FROM events');
    this.after = db.prepare('SELECT * FROM events WHERE sequence > ? ORDER BY sequence LIMIT ?');
    this.threadAfter = db.prepare(
      'SELECT * FROM events WHERE thread_id = ? AND sequence > ? ORDER BY sequence LIMIT ?',
    );
  }

  /**
   * The last committed sequence. Read once from disk, then kept: the log's only writer is
   * this store, which tells it when a transaction commits.
   */
  lastSequence(): number {
    return (this.committedLast ??= this.last.get()?.s ?? 0);
  }

  /** The store's transaction committed: its events are now the log's end. */
  committed(): void {
    if (this.stagedLast !== null) this.committedLast = this.stagedLast;
    this.stagedLast = null;
  }

  /** The store's transaction rolled back: its sequence numbers are free again. */
  rolledBack(): void {
    this.stagedLast = null;
  }

  /**
   * Stages the events in order after `last`; returns the new last sequence. They are
   * written by `flush`, which the store calls before its transaction ends.
   */
  append(events: ValidUnit['events'], last: number, at: number): number {
    let sequence = last;
    for (const e of events) {
      sequence += 1;
      this.insert.row().push(sequence, e.eventId, e.commandId, e.causationId, e.threadId, e.type, e.payloadJson, at);
    }
    if (events.length) this.stagedLast = sequence;
    return sequence;
  }

  /** Writes the staged events. Call inside the transaction that staged them. */
  flush(): void {
    this.insert.flush();
  }

  discard(): void {
    this.insert.discard();
  }

  readAfter(afterSequence: number, limit = 10_000): DomainEvent[] {
    return this.after.all(afterSequence, limit).map(toEvent);
  }

  readThreadAfter(threadId: string, afterSequence: number, limit = 10_000): DomainEvent[] {
    return this.threadAfter.all(threadId, afterSequence, limit).map(toEvent);
  }
}
