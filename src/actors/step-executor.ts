import type { Logger } from 'pino';
import { toErrorInfo } from '../domain/errors.js';
import type { DomainEvent, EventType, NewEvent } from '../domain/events.js';
import type { Clock, IdSource } from '../domain/sources.js';
import type { CommitQueue } from '../persistence/commit-queue.js';
import type { Store } from '../persistence/store.js';
import { RowCache } from '../projections/row-cache.js';
import type { EntityHost } from './entity-host.js';
import { replayReceipt, type CommandIdentity } from './receipt-replay.js';
import type { StepContext } from './step-context.js';
import type { StepOptions, StepOutcome } from './step-outcome.js';
import { Step } from './step.js';

export interface StepExecutorDeps {
  store: Store;
  queue: CommitQueue;
  ids: IdSource;
  clock: Clock;
  logger: Logger;
  publish(events: DomainEvent[]): void;
  /** Told after a commit that queued outbox effects (the worker has something to claim). */
  effectsQueued(): void;
  /** Told after a commit that scheduled or cancelled durable timers. */
  timersChanged(): void;
}

/**
 * Carries out one step of a thread: the asynchronous preparation, the work on the entity
 * host, one commit of everything the step produced (with the command's receipt), then the
 * publication of its events. A refused step commits only its typed rejection as the
 * receipt; its in-memory changes are dropped.
 */
export class StepExecutor {
  /** Hot projection rows (the open message, its item) kept across steps; see RowCache. */
  private readonly rows = new RowCache();

  constructor(
    private readonly host: EntityHost,
    private readonly deps: StepExecutorDeps,
  ) {}

  async execute<P, T extends Record<string, unknown>>(
    prepare: (ctx: StepContext) => Promise<P>,
    work: (ctx: StepContext, prepared: P) => T,
    options: StepOptions,
  ): Promise<StepOutcome<T>> {
    const { store, queue, ids, clock } = this.deps;
    const host = this.host;
    if (options.commandId && (options.mayBeAnswered?.() ?? true)) {
      const existing = store.receipts.get(options.commandId);
      if (existing) return replayReceipt<T>(existing, identityOf(options));
    }
    let prepared: P;
    try {
      prepared = await prepare(host);
    } catch (error) {
      this.abandon();
      return this.reject(error, options);
    }
    const step = new Step(
      host.threadId,
      clock.nowMs(),
      ids,
      store.projections,
      options.commandId ?? null,
      options.causationId ?? null,
      this.rows,
    );
    host.begin(step);
    let result: T;
    try {
      result = work(host, prepared);
      // What the work queued without delivering is followed too.
      host.drain();
    } catch (error) {
      this.abandon();
      return this.reject(error, options);
    }
    const snapshots = host.end();
    if (options.commandId) {
      step.receipt = {
        ok: true,
        commandId: options.commandId,
        commandType: options.commandType ?? 'unknown',
        threadId: host.threadId,
        result,
      };
    }
    const unit = step.toUnit(snapshots);
    let committed;
    try {
      committed = await queue.submit(unit);
    } catch (error) {
      this.abandon();
      return this.reject(error, options);
    }
    if (committed.duplicate) {
      // Another step with this commandId won the race: what we computed is discarded.
      this.abandon();
      return replayReceipt<T>(committed.receipt, identityOf(options));
    }
    step.view.remember();
    host.rest();
    const first = committed.firstSequence ?? committed.lastSequence + 1;
    const events: DomainEvent[] = step.events.map((e, i) => committedEvent(e, first + i, committed.at));
    if (events.length) this.deps.publish(events);
    if (unit.effects?.length) this.deps.effectsQueued();
    if (unit.timers?.length) this.deps.timersChanged();
    return { ok: true, result, lastSequence: committed.lastSequence, events };
  }

  /** Drops the thread's in-memory state: the next step loads what it needs from the rows. */
  passivate(): void {
    this.host.passivate();
    this.rows.clear();
  }

  private abandon(): void {
    this.host.abandon();
    this.rows.clear();
  }

  /** A refused step stores its typed rejection as the command's receipt, and nothing else. */
  private async reject<T>(error: unknown, options: StepOptions): Promise<StepOutcome<T>> {
    const info = toErrorInfo(error);
    if (info.code === 'internal') this.deps.logger.error({ err: error, thread: this.host.threadId }, 'a step failed');
    if (!options.commandId) return { ok: false, error: info, lastSequence: this.deps.store.lastSequence() };
    const receipt = {
      ok: false as const,
      commandId: options.commandId,
      commandType: options.commandType ?? 'unknown',
      threadId: this.host.threadId,
      error: info,
    };
    const committed = await this.deps.queue.submit({ receipt });
    return committed.duplicate
      ? replayReceipt<T>(committed.receipt, identityOf(options))
      : { ok: false, error: info, lastSequence: committed.lastSequence };
  }
}

/** A stored receipt answers only the same type of command on the thread it names. */
const identityOf = (options: StepOptions): CommandIdentity => ({
  commandType: options.commandType ?? 'unknown',
  threadId: options.namedThreadId ?? null,
});

/**
 * A new event as committed: its sequence and time added. Field by field, not by spreading
 * the new event: V8 copies such a spread through its generic path, about 7 µs a step
 * (measured in-process).
 */
function committedEvent<K extends EventType>(e: NewEvent<K>, sequence: number, at: number): DomainEvent<K> {
  return {
    sequence,
    eventId: e.eventId,
    commandId: e.commandId ?? null,
    causationId: e.causationId ?? null,
    threadId: e.threadId,
    type: e.type,
    payload: e.payload,
    at,
  };
}
