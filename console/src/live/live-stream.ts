import { z } from 'zod';
import type { BatonClient, ClientSubscription } from '../../../src/client/baton-client.js';
import { BatonError } from '../../../src/domain/errors.js';
import { DomainEvent } from '../../../src/domain/events.js';
import { projectionNames, TurnItemView, type ProjectionName } from '../../../src/domain/projections.js';
import { ProjectionOverlay } from '../../../src/projections/overlay.js';
import { project } from '../../../src/projections/projector.js';
import { FrameNotifier } from './frame-notifier.js';
import { MemoryTables } from './memory-tables.js';
import { validRow, type Extras, type StreamSpec } from './stream-specs.js';

export type StreamStatus = 'loading' | 'live' | 'missing' | 'error';

const Stored = z.object({
  v: z.literal(2),
  cursor: z.number().int().nonnegative(),
  logId: z.string().nullable(),
  tables: z.partialRecord(
    z.enum(projectionNames as [ProjectionName, ...ProjectionName[]]),
    z.array(z.tuple([z.string(), z.string().nullable(), z.number(), z.unknown()])),
  ),
  inherited: z.array(TurnItemView),
});

/**
 * One stream, live: its snapshot laid into in-memory tables, then every event after the
 * cursor run through Baton's own projector, each once (a sequence at or below the cursor
 * is dropped, whether it comes again after a reconnect or after a reload). The tables and
 * the cursor are kept in sessionStorage when the page goes away, so a reload resumes with
 * `afterSequence` instead of a new snapshot.
 */
export class LiveStream extends FrameNotifier {
  tables: MemoryTables;
  extras: Extras = { inherited: [] };
  status: StreamStatus = 'loading';
  error: string | null = null;
  /** The sequence of the last event applied (or of the snapshot). */
  cursor = -1;
  /** The event log the cursor is in: a resume names it, so another Baton's log refuses it. */
  private logId: string | null = null;
  private subscription: ClientSubscription | null = null;
  private early: { event: unknown; sequence: number }[] | null = [];
  private closed = false;

  constructor(
    readonly spec: StreamSpec,
    private readonly storageKey: string,
  ) {
    super();
    this.tables = new MemoryTables(new Set(spec.kept));
  }

  /**
   * Subscribes: after the cursor a reload left, or from a new snapshot. A cursor this Baton
   * refuses (its log is not the one the view was made from: another data dir, say) is
   * dropped, and the view starts afresh from a new snapshot.
   */
  async open(client: BatonClient): Promise<void> {
    const restored = this.restore();
    try {
      await this.subscribe(client, restored);
    } catch (error) {
      if (restored && !this.closed) await this.afresh(client);
      else this.failed(error);
    }
    this.changed();
  }

  private async subscribe(client: BatonClient, resume: boolean): Promise<void> {
    const cursor = { afterSequence: this.cursor, ...(this.logId === null ? {} : { logId: this.logId }) };
    const { subscription, snapshot, snapshotSequence, logId } = await client.subscribe(
      resume ? { ...this.spec.request, ...cursor } : this.spec.request,
      (event, sequence) => this.receive(event, sequence),
      () => void this.afresh(client),
    );
    this.subscription = subscription;
    if (this.closed) return void subscription.close();
    if (!resume) {
      this.extras = this.spec.load(snapshot, this.tables);
      this.cursor = snapshotSequence;
    }
    this.logId = logId;
    this.status = 'live';
    this.error = null;
    const early = this.early ?? [];
    this.early = null;
    for (const e of early) this.receive(e.event, e.sequence);
  }

  /**
   * The view could not go on from its cursor (a reload's, or a reconnect's to a Baton whose
   * log is not the one the view was made from): it is dropped and made again from a new snapshot.
   */
  private async afresh(client: BatonClient): Promise<void> {
    if (this.closed) return;
    this.tables = new MemoryTables(new Set(this.spec.kept));
    this.extras = { inherited: [] };
    this.cursor = -1;
    this.logId = null;
    this.early = [];
    this.status = 'loading';
    this.changed();
    try {
      await this.subscribe(client, false);
    } catch (error) {
      this.failed(error);
    }
    this.changed();
  }

  private failed(error: unknown): void {
    // The stream of a thread Baton does not have is refused `not_found`, naming the thread.
    if (error instanceof BatonError && error.code === 'not_found' && hasThreadId(error.details)) {
      this.status = 'missing';
      this.error = null;
      return;
    }
    this.status = 'error';
    // A zod error's message is its issues as JSON: a person gets a sentence instead.
    this.error =
      error instanceof z.ZodError
        ? 'Baton answered with a snapshot the console cannot read (is the console older than Baton?); reload the page'
        : `Baton refused to show this: ${error instanceof Error ? error.message : String(error)}`;
  }

  /** Unsubscribes and keeps the state for a later visit (or a reload). */
  close(): void {
    this.closed = true;
    this.save();
    void this.subscription?.close();
    this.stopNotifying();
  }

  private receive(raw: unknown, sequence: number): void {
    // Events that come before the snapshot is laid out wait for it.
    if (this.early) return void this.early.push({ event: raw, sequence });
    if (sequence <= this.cursor) return;
    const parsed = DomainEvent.safeParse(raw);
    if (!parsed.success) {
      this.status = 'error';
      this.error = `Baton sent an event the console cannot read (sequence ${sequence}); reload the page`;
      return this.changed();
    }
    const overlay = new ProjectionOverlay(this.tables.asBase());
    project(parsed.data, overlay);
    this.tables.apply(overlay.changes());
    this.cursor = sequence;
    this.changed();
  }

  save(): void {
    if (this.status !== 'live') return;
    const state = {
      v: 2,
      cursor: this.cursor,
      logId: this.logId,
      tables: this.tables.dump(),
      inherited: this.extras.inherited,
    };
    try {
      sessionStorage.setItem(this.storageKey, JSON.stringify(state));
    } catch {
      // Over the quota: a reload takes a new snapshot instead.
      sessionStorage.removeItem(this.storageKey);
    }
  }

  /** The state a reload left, if it is there and reads back valid. */
  private restore(): boolean {
    const raw = sessionStorage.getItem(this.storageKey);
    if (raw === null) return false;
    sessionStorage.removeItem(this.storageKey);
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return false;
    }
    const stored = Stored.safeParse(json);
    if (!stored.success) return false;
    const tables = new MemoryTables(new Set(this.spec.kept));
    for (const [name, rows] of Object.entries(stored.data.tables) as [ProjectionName, typeof stored.data.tables.runs][])
      for (const [id, threadId, ord, row] of rows ?? []) {
        if (!validRow(name, row)) return false;
        tables.put(name, id, threadId, ord, row);
      }
    this.tables = tables;
    this.cursor = stored.data.cursor;
    this.logId = stored.data.logId;
    this.extras = { inherited: stored.data.inherited };
    return true;
  }
}

const hasThreadId = (details: unknown): boolean =>
  typeof details === 'object' && details !== null && 'threadId' in details;
