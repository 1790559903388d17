import { createActor, type AnyActor } from 'xstate';
import type { Logger } from 'pino';
import type { EntityKind } from '../domain/entities.js';
import { BatonError, toErrorInfo, type ErrorInfo } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import type { CommandId, ThreadId, TimerId } from '../domain/ids.js';
import type { Receipt } from '../domain/receipts.js';
import type { Clock, IdSource } from '../domain/sources.js';
import type { MachineOutput } from '../machines/outputs.js';
import type { CommitQueue } from '../persistence/commit-queue.js';
import type { EntitySnapshotWrite } from '../persistence/commit-unit.js';
import type { Store } from '../persistence/store.js';
import { RowCache } from '../projections/row-cache.js';
import { performBarrierStep } from './barrier.js';
import { machineFor } from './entity-machines.js';
import { cancelLiveWorkEffects } from './live-work-effects.js';
import { Step } from './step.js';
import { replayReceipt, type CommandIdentity } from './receipt-replay.js';

export interface ThreadDeps {
  store: Store;
  queue: CommitQueue;
  ids: IdSource;
  clock: Clock;
  /** How long a runtime request waits for an answer before it expires; null for ever. */
  requestTtlMs: number | null;
  logger: Logger;
  publish(events: DomainEvent[]): void;
}

export interface EntityRef {
  kind: EntityKind;
  id: string;
}

interface Live extends EntityRef {
  actor: AnyActor;
}

export interface StepOptions {
  commandId?: string | null;
  commandType?: string;
  causationId?: string | null;
}

interface IngestItem {
  route: (ctx: ThreadActor) => void;
  resolve: (outcome: StepOutcome<Record<string, unknown>>) => void;
}

export type StepOutcome<T> =
  | { ok: true; result: T; lastSequence: number; events: DomainEvent[]; duplicate?: Receipt }
  | { ok: false; error: ErrorInfo; lastSequence: number };

/**
 * The host of one AppThread's actors. Its mailbox runs one step at a time (the per-thread
 * lock; other threads run in parallel); a step delivers events to entity actors, follows
 * what their machines emit (events, effects, messages to other entities, new entities)
 * until everything is quiet, then commits all of it as one unit before it publishes, and
 * before the next step starts. Entity actors are loaded from their own rows on first use
 * and dropped again once they rest, so an idle thread costs almost nothing.
 */
export class ThreadActor {
  private readonly live = new Map<string, Live>();
  private tail: Promise<unknown> = Promise.resolve();
  private step: Step | null = null;
  private readonly dirty = new Map<string, Live>();
  private outputs: { from: Live; output: MachineOutput }[] = [];
  private work: { to: EntityRef; event: { type: string } }[] = [];
  private queued = 0;
  /** Hot projection rows (the open message, its item) kept across steps; see RowCache. */
  private readonly rows = new RowCache();

  constructor(
    readonly threadId: string,
    private readonly deps: ThreadDeps,
  ) {}

  /** True while no step is queued or running: the runtime may passivate this thread. */
  get idle(): boolean {
    return this.queued === 0;
  }

  get requestTtlMs(): number | null {
    return this.deps.requestTtlMs;
  }

  get liveEntityCount(): number {
    return this.live.size;
  }

  /** Resolves when every step queued so far has finished. */
  settled(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  /** Loads the thread's supervisor from its row (no-op when live); false if the thread is unknown. */
  hydrate(): boolean {
    return this.entity({ kind: 'thread_supervisor', id: this.threadId }) !== null;
  }

  /** Runs `work` as one step in this thread's mailbox. */
  run<T extends Record<string, unknown>>(work: (ctx: ThreadActor) => T, options: StepOptions = {}): Promise<StepOutcome<T>> {
    return this.runPrepared(async () => undefined, (ctx) => work(ctx), options);
  }

  /**
   * Like `run`, with asynchronous I/O first (restoring files for a rollback, say), inside
   * the same mailbox turn so nothing else on this thread interleaves; its result feeds
   * the step. A failure of `prepare` refuses the command like any other.
   */
  runPrepared<P, T extends Record<string, unknown>>(prepare: (ctx: ThreadActor) => Promise<P>, work: (ctx: ThreadActor, prepared: P) => T, options: StepOptions = {}): Promise<StepOutcome<T>> {
    // Provider events that arrive after this step is queued must not overtake it.
    this.openBatch = null;
    return this.schedule(() => this.execute(prepare, work, options));
  }

  /**
   * Provider events that arrive while the mailbox is busy share one step: one commit, one
   * publish, however many deltas came in meanwhile. If the shared step is refused, its
   * events run again one by one in the same mailbox turn, so only the bad one is refused.
   */
  ingest(route: (ctx: ThreadActor) => void): Promise<StepOutcome<Record<string, unknown>>> {
    return new Promise((resolve) => {
      if (this.openBatch) {
        this.openBatch.push({ route, resolve });
        return;
      }
      const batch: IngestItem[] = [{ route, resolve }];
      this.openBatch = batch;
      void this.schedule(async () => {
        if (this.openBatch === batch) this.openBatch = null;
        const all = await this.execute(async () => undefined, (t) => {
          for (const item of batch) item.route(t);
          return {};
        }, {});
        if (all.ok || batch.length === 1) return batch.forEach((item) => item.resolve(all));
        for (const item of batch) item.resolve(await this.execute(async () => undefined, (t) => (item.route(t), {}), {}));
      });
    });
  }

  private openBatch: IngestItem[] | null = null;

  private schedule<R>(job: () => Promise<R>): Promise<R> {
    this.queued += 1;
    const run = this.tail.then(job).finally(() => (this.queued -= 1));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async execute<P, T extends Record<string, unknown>>(prepare: (ctx: ThreadActor) => Promise<P>, work: (ctx: ThreadActor, prepared: P) => T, options: StepOptions): Promise<StepOutcome<T>> {
    const { store, queue, ids, clock } = this.deps;
    if (options.commandId) {
      const existing = store.receipts.get(options.commandId);
      if (existing) return replayReceipt<T>(existing, identityOf(options));
    }
    let prepared: P;
    try {
      prepared = await prepare(this);
    } catch (error) {
      this.abandon();
      return this.reject(error, options);
    }
    const step = new Step(this.threadId, clock.nowMs(), ids, store.projections, options.commandId ?? null, options.causationId ?? null, this.rows);
    this.step = step;
    let result: T;
    try {
      result = work(this, prepared);
      this.drain();
    } catch (error) {
      this.abandon();
      return this.reject(error, options);
    }
    this.step = null;
    if (options.commandId) {
      step.receipt = { ok: true, commandId: options.commandId as CommandId, commandType: options.commandType ?? 'unknown', threadId: this.threadId as ThreadId, result };
    }
    const unit = step.toUnit(this.snapshots());
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
    this.rest();
    const first = committed.firstSequence ?? committed.lastSequence + 1;
    const events = unit.events!.map((e, i) => ({ ...e, sequence: first + i, at: committed.at, commandId: e.commandId ?? null, causationId: e.causationId ?? null }) as DomainEvent);
    if (events.length) this.deps.publish(events);
    return { ok: true, result, lastSequence: committed.lastSequence, events };
  }

  /** A refused step stores its typed rejection as the command's receipt, and nothing else. */
  private async reject<T>(error: unknown, options: StepOptions): Promise<StepOutcome<T>> {
    const info = toErrorInfo(error);
    if (info.code === 'internal') this.deps.logger.error({ err: error, thread: this.threadId }, 'a step failed');
    if (!options.commandId) return { ok: false, error: info, lastSequence: this.deps.store.lastSequence() };
    const receipt = { ok: false as const, commandId: options.commandId as CommandId, commandType: options.commandType ?? 'unknown', threadId: this.threadId as ThreadId, error: info };
    const committed = await this.deps.queue.submit({ receipt });
    return committed.duplicate ? replayReceipt<T>(committed.receipt, identityOf(options)) : { ok: false, error: info, lastSequence: committed.lastSequence };
  }

  // ---- used by command handlers and provider routing, inside a step ----

  get current(): Step {
    if (!this.step) throw new Error('no step in progress');
    return this.step;
  }

  /** Delivers an event; with `mustAccept`, refuses (typed) an event the entity's machine cannot take now. */
  deliver(to: EntityRef, event: { type: string; [k: string]: unknown }, options: { mustAccept?: boolean } = {}): void {
    if (options.mustAccept) {
      const entity = this.require(to);
      if (!entity.actor.getSnapshot().can(event)) {
        throw new BatonError('invalid_transition', `${to.kind} ${to.id} cannot take ${event.type} in state ${JSON.stringify(entity.actor.getSnapshot().value)}`, {
          entity: to,
          state: entity.actor.getSnapshot().value,
        });
      }
    }
    this.work.push({ to, event });
    this.drain();
  }

  /** Queues a delivery behind the work already queued in this step (used while draining). */
  enqueue(to: EntityRef, event: { type: string; [k: string]: unknown }): void {
    this.work.push({ to, event });
  }

  spawn(kind: EntityKind, id: string, input: Record<string, unknown>): void {
    if (this.entity({ kind, id })) throw new BatonError('conflict', `${kind} ${id} exists already`);
    const { machine } = machineFor(kind);
    const live: Live = { kind, id, actor: createActor(machine, { input }) };
    this.attach(live);
    this.drain();
  }

  /** The entity's current snapshot, loading it from its row if needed; null if unknown. */
  snapshot(to: EntityRef): ReturnType<AnyActor['getSnapshot']> | null {
    return this.entity(to)?.actor.getSnapshot() ?? null;
  }

  require(to: EntityRef): Live {
    const entity = this.entity(to);
    if (!entity) throw new BatonError('not_found', `no ${to.kind} ${to.id} on thread ${this.threadId}`);
    return entity;
  }

  // ---- internals ----

  private entity(to: EntityRef): Live | null {
    const known = this.live.get(to.id);
    if (known) return known.kind === to.kind ? known : null;
    const row = this.deps.store.entities.get(to.id);
    if (!row || row.kind !== to.kind || row.threadId !== this.threadId) return null;
    const { machine, version } = machineFor(to.kind);
    if (row.machineVersion !== version || row.machineId !== machine.id) {
      throw new BatonError('internal', `${to.kind} ${to.id} was stored by ${row.machineId} v${row.machineVersion}; this Baton runs ${machine.id} v${version} and has no migration for it`);
    }
    const live: Live = { ...to, actor: createActor(machine, { snapshot: row.snapshot as never }) };
    this.attach(live, false);
    if (live.actor.getSnapshot().status === 'error') throw new BatonError('internal', `${to.kind} ${to.id} restored into an error state`);
    return live;
  }

  private attach(live: Live, changed = true): void {
    live.actor.on('*', (output) => void this.outputs.push({ from: live, output: output as MachineOutput }));
    this.live.set(live.id, live);
    if (changed) this.dirty.set(live.id, live);
    live.actor.start();
  }

  /** Follows outputs and queued deliveries until the step is quiet. */
  private drain(): void {
    for (;;) {
      const next = this.outputs.shift();
      if (next) {
        this.handle(next.from, next.output);
        continue;
      }
      const item = this.work.shift();
      if (!item) return;
      const target = this.entity(item.to);
      if (!target) {
        this.current.addEvent('runtime.warning', { threadId: this.threadId as ThreadId, runId: null, message: `${item.event.type} for unknown ${item.to.kind} ${item.to.id} was dropped` });
        continue;
      }
      if (target.actor.getSnapshot().status === 'done') {
        // A finished entity takes nothing more, and its row need not be rewritten. Late
        // provider events (a turn that completes after its run ended by policy) are normal.
        this.deps.logger.debug({ threadId: this.threadId, entity: item.to, event: item.event.type }, 'event for a finished entity ignored');
        continue;
      }
      target.actor.send(item.event);
      this.dirty.set(target.id, target);
    }
  }

  private handle(from: Live, output: MachineOutput): void {
    const step = this.current;
    switch (output.type) {
      case 'domain':
        step.addEvent(output.event.type, output.event.payload as never);
        return;
      case 'effect':
        // The machine names the effect's provider; the commit checks a provider effect has one.
        step.addEffect(output.effect, output.effect.provider);
        return;
      case 'send':
        this.work.push({ to: output.to, event: output.event });
        return;
      case 'spawn': {
        const { machine } = machineFor(output.entity.kind);
        this.attach({ kind: output.entity.kind, id: output.entity.id, actor: createActor(machine, { input: output.entity.input }) });
        return;
      }
      case 'barrier':
        performBarrierStep(this, output.runId, output.step);
        return;
      case 'cancel_effects':
        cancelLiveWorkEffects(step, this.deps.store.outbox.open(this.threadId), output.runId, output.reason);
        return;
      case 'timer': {
        const timerId = timerIdOf(from.id, output.key) as TimerId;
        step.timers.push(
          output.op === 'schedule'
            ? { op: 'schedule', timerId, threadId: this.threadId, entityId: from.id, dueAt: output.dueAt, event: { kind: from.kind, event: output.event } }
            : { op: 'cancel', timerId },
        );
        return;
      }
    }
  }

  private snapshots(): EntitySnapshotWrite[] {
    return [...this.dirty.values()].map((e) => ({
      entityId: e.id,
      kind: e.kind,
      threadId: this.threadId,
      machineId: machineFor(e.kind).machine.id,
      machineVersion: machineFor(e.kind).version,
      snapshot: e.actor.getPersistedSnapshot(),
    }));
  }

  /** After a commit: entities that rest (terminal) leave memory; the row holds them. */
  private rest(): void {
    for (const e of this.dirty.values()) {
      const snap = e.actor.getSnapshot();
      if (e.kind !== 'thread_supervisor' && (snap.status === 'done' || snap.hasTag('terminal'))) this.evict(e);
    }
    this.dirty.clear();
    const supervisor = this.live.get(this.threadId);
    const busy = (supervisor?.actor.getSnapshot().context as { activeRunId?: string | null } | undefined)?.activeRunId;
    if (!busy) for (const e of [...this.live.values()]) if (e.kind !== 'thread_supervisor') this.evict(e);
  }

  private evict(e: Live): void {
    e.actor.stop();
    this.live.delete(e.id);
  }

  /** Drops every in-memory change of a failed step: the rows on disk are the truth. */
  private abandon(): void {
    this.step = null;
    this.outputs = [];
    this.work = [];
    this.dirty.clear();
    this.passivate();
  }

  passivate(): void {
    for (const e of [...this.live.values()]) this.evict(e);
    this.rows.clear();
  }
}

/** A timer's id is derived from its entity and key, so the entity can cancel what it scheduled. */
export const timerIdOf = (entityId: string, key: string): string => `tmr_${entityId}_${key}`;

/** A stored receipt answers only the same type of command (its thread is checked at dispatch). */
const identityOf = (options: StepOptions): CommandIdentity => ({ commandType: options.commandType ?? 'unknown', threadId: null });
