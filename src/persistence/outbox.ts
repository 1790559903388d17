import type { Statement } from 'better-sqlite3';
import type { Effect, EffectStatus, NewEffect } from '../domain/effects.js';
import { BatonError } from '../domain/errors.js';
import type { Db } from './database.js';
import type { EffectUpdate } from './commit-unit.js';

interface EffectRow {
  effect_id: string;
  kind: string;
  status: EffectStatus;
  thread_id: string;
  run_id: string | null;
  node_id: string | null;
  provider: string | null;
  payload: string;
  causation_event_id: string | null;
  command_id: string | null;
  attempts: number;
  last_error: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  available_at: number;
  created_at: number;
  updated_at: number;
}

const toEffect = (r: EffectRow): Effect =>
  ({
    id: r.effect_id,
    kind: r.kind,
    status: r.status,
    threadId: r.thread_id,
    runId: r.run_id,
    nodeId: r.node_id,
    provider: r.provider,
    payload: JSON.parse(r.payload),
    causationEventId: r.causation_event_id,
    commandId: r.command_id,
    attempts: r.attempts,
    lastError: r.last_error,
    leaseOwner: r.lease_owner,
    leaseExpiresAt: r.lease_expires_at,
    availableAt: r.available_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }) as Effect;

/**
 * The effect outbox. A worker claims effects under a lease; a worker that dies leaves its
 * lease to expire, and the effect becomes claimable again with its attempt count kept.
 */
export class Outbox {
  private readonly insert: Statement;
  private readonly byId: Statement<[string], EffectRow>;
  private readonly claimable: Statement<[number, number, number], EffectRow>;
  private readonly lease: Statement;
  private readonly settle: Statement;
  private readonly extend: Statement;
  private readonly byStatus: Statement<[string], EffectRow>;
  private readonly byThread: Statement<[string], EffectRow>;
  private readonly byThreadOpen: Statement<[string], EffectRow>;

  constructor(private readonly db: Db) {
    this.insert =
      db.prepare(`INSERT INTO outbox (effect_id, kind, status, thread_id, run_id, node_id, provider, payload,
      causation_event_id, command_id, attempts, available_at, created_at, updated_at)
      VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`);
    this.byId = db.prepare('SELECT * FROM outbox WHERE effect_id = ?');
    this.claimable = db.prepare(`SELECT * FROM outbox
      WHERE (status = 'pending' AND available_at <= ?) OR (status = 'running' AND lease_expires_at <= ?)
      ORDER BY created_at, rowid LIMIT ?`);
    this.lease = db.prepare(`UPDATE outbox SET status = 'running', attempts = attempts + 1, lease_owner = ?,
      lease_expires_at = ?, updated_at = ? WHERE effect_id = ?`);
    this.settle = db.prepare(`UPDATE outbox SET status = ?, last_error = coalesce(?, last_error), lease_owner = NULL,
      lease_expires_at = NULL, available_at = coalesce(?, available_at), updated_at = ? WHERE effect_id = ?`);
    this.extend = db.prepare(
      `UPDATE outbox SET lease_expires_at = ?, updated_at = ? WHERE effect_id = ? AND status = 'running' AND lease_owner = ?`,
    );
    this.byStatus = db.prepare('SELECT * FROM outbox WHERE status = ? ORDER BY created_at, rowid');
    this.byThread = db.prepare('SELECT * FROM outbox WHERE thread_id = ? ORDER BY created_at, rowid');
    this.byThreadOpen = db.prepare(
      "SELECT * FROM outbox WHERE thread_id = ? AND status IN ('pending', 'running') ORDER BY created_at, rowid",
    );
  }

  add(effect: NewEffect, at: number): void {
    this.insert.run(
      effect.id,
      effect.kind,
      effect.threadId,
      effect.runId,
      effect.nodeId,
      effect.provider,
      JSON.stringify(effect.payload),
      effect.causationEventId,
      effect.commandId,
      at,
      at,
      at,
    );
  }

  /** Applies a settle/retry update; with `leaseOwner`, only while that owner holds the lease. */
  update(u: EffectUpdate, at: number): void {
    const row = this.byId.get(u.effectId);
    if (!row) throw new BatonError('not_found', `no effect ${u.effectId}`);
    if (u.leaseOwner !== undefined && (row.status !== 'running' || row.lease_owner !== u.leaseOwner)) {
      throw new BatonError('lease_lost', `effect ${u.effectId} is no longer leased to ${u.leaseOwner}`, {
        status: row.status,
        leaseOwner: row.lease_owner,
      });
    }
    this.settle.run(u.status, u.error ?? null, u.availableAt ?? null, at, u.effectId);
  }

  /**
   * Leases up to `limit` claimable effects to `owner` until `now + leaseMs`: only of `kinds`
   * when given, and none of the threads in `skipThreads` (whose effects the owner is running).
   */
  claim(
    owner: string,
    now: number,
    leaseMs: number,
    limit = 16,
    kinds?: readonly string[],
    skipThreads?: ReadonlySet<string>,
  ): Effect[] {
    return this.db
      .transaction(() => {
        const skipping = Boolean(skipThreads?.size);
        const all = this.claimable.all(now, now, kinds || skipping ? 10_000 : limit);
        const wanted = (r: EffectRow) =>
          (!kinds || kinds.includes(r.kind)) && !(skipping && skipThreads!.has(r.thread_id));
        const rows = all.filter(wanted).slice(0, limit);
        for (const r of rows) this.lease.run(owner, now + leaseMs, now, r.effect_id);
        return rows.map((r) => this.get(r.effect_id)!);
      })
      .immediate();
  }

  /** Extends the leases `owner` still holds on these effects until `until`. */
  renew(owner: string, effectIds: readonly string[], until: number, at: number): void {
    this.db.transaction(() => {
      for (const id of effectIds) this.extend.run(until, at, id, owner);
    })();
  }

  /**
   * Makes every leased effect claimable at once; returns how many. Only for start-up under
   * the data-dir lock, when every lease belongs to a worker that died with the last Baton,
   * so its effects need not wait out their leases.
   */
  releaseLeases(at: number): number {
    return this.db
      .prepare(
        `UPDATE outbox SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL, available_at = ?, updated_at = ? WHERE status = 'running'`,
      )
      .run(at, at).changes;
  }

  /** A thread's effects still to be carried out (pending or running), oldest first. */
  open(threadId: string): Effect[] {
    return this.byThreadOpen.all(threadId).map(toEffect);
  }

  get(effectId: string): Effect | null {
    const row = this.byId.get(effectId);
    return row ? toEffect(row) : null;
  }

  list(filter: { status?: EffectStatus; threadId?: string }): Effect[] {
    if (filter.threadId) {
      const rows = this.byThread.all(filter.threadId);
      return rows.filter((r) => !filter.status || r.status === filter.status).map(toEffect);
    }
    return this.byStatus.all(filter.status ?? 'pending').map(toEffect);
  }
}
