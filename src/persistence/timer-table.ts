import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import type { TimerChange } from './commit-unit.js';

export interface DurableTimer {
  timerId: string;
  threadId: string;
  entityId: string | null;
  dueAt: number;
  event: Record<string, unknown>;
}

interface TimerRow {
  timer_id: string;
  thread_id: string;
  entity_id: string | null;
  due_at: number;
  event: string;
}

/**
 * Durable timers replace XState delays, which are not persisted: a due timer is delivered
 * to its thread as an ordinary event, and marked fired in that event's own commit.
 */
export class TimerTable {
  private readonly schedule: Statement;
  private readonly setStatus: Statement;
  private readonly due: Statement<[number, number], TimerRow>;

  constructor(db: Db) {
    this.schedule = db.prepare(`INSERT INTO timers (timer_id, thread_id, entity_id, due_at, event, status, created_at)
      VALUES (?, ?, ?, ?, ?, 'pending', ?)
      ON CONFLICT (timer_id) DO UPDATE SET due_at = excluded.due_at, event = excluded.event, status = 'pending'`);
    this.setStatus = db.prepare(`UPDATE timers SET status = ? WHERE timer_id = ? AND status = 'pending'`);
    this.due = db.prepare(
      `SELECT * FROM timers WHERE status = 'pending' AND due_at <= ? ORDER BY due_at, rowid LIMIT ?`,
    );
  }

  apply(change: TimerChange, at: number): void {
    if (change.op === 'schedule') {
      this.schedule.run(
        change.timerId,
        change.threadId,
        change.entityId,
        change.dueAt,
        JSON.stringify(change.event),
        at,
      );
    } else {
      this.setStatus.run(change.op === 'cancel' ? 'cancelled' : 'fired', change.timerId);
    }
  }

  dueAt(now: number, limit = 100): DurableTimer[] {
    return this.due.all(now, limit).map((r) => ({
      timerId: r.timer_id,
      threadId: r.thread_id,
      entityId: r.entity_id,
      dueAt: r.due_at,
      event: JSON.parse(r.event) as Record<string, unknown>,
    }));
  }
}
