import type { Statement } from 'better-sqlite3';
import type { DomainEvent } from '../domain/events.js';
import type { Db } from './database.js';
import type { ValidUnit } from './commit-unit.js';

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

/**
 * The append-only log with one global sequence. The writer assigns `last + 1` inside the
 * write transaction, so the sequence is gap-free: a rolled-back unit leaves no number used.
 */
export class EventLog {
  private readonly insert: Statement;
  private readonly last: Statement<[], { s: number | null }>;
  private readonly after: Statement<[number, number], EventRow>;
  private readonly threadAfter: Statement<[string, number, number], EventRow>;

  constructor(db: Db) {
    this.insert = db.prepare(
      'INSERT INTO events (sequence, event_id, command_id, causation_id, thread_id, type, payload, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.last = db.prepare('SELECT max(sequence) AS s FROM events');
    this.after = db.prepare('SELECT * FROM events WHERE sequence > ? ORDER BY sequence LIMIT ?');
    this.threadAfter = db.prepare('SELECT * FROM events WHERE thread_id = ? AND sequence > ? ORDER BY sequence LIMIT ?');
  }

  lastSequence(): number {
    return this.last.get()?.s ?? 0;
  }

  /** Appends in order after `last`; returns the new last sequence. Call inside a transaction. */
  append(events: ValidUnit['events'], last: number, at: number): number {
    let sequence = last;
    for (const e of events) {
      sequence += 1;
      this.insert.run(sequence, e.eventId, e.commandId, e.causationId, e.threadId, e.type, e.payloadJson, at);
    }
    return sequence;
  }

  readAfter(afterSequence: number, limit = 10_000): DomainEvent[] {
    return this.after.all(afterSequence, limit).map(toEvent);
  }

  readThreadAfter(threadId: string, afterSequence: number, limit = 10_000): DomainEvent[] {
    return this.threadAfter.all(threadId, afterSequence, limit).map(toEvent);
  }
}
