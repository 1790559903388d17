import type { Logger } from 'pino';
import type { EventObject } from 'xstate';
import type { EntityKind } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';
import { idOf, type ThreadId, type TimerId } from '../domain/ids.js';
import type { MachineOutput, SendTo, Spawn } from '../machines/outputs.js';
import type { EntitySnapshotWrite } from '../persistence/commit-unit.js';
import type { Store } from '../persistence/store.js';
import { performBarrierStep } from './barrier.js';
import {
  entityLogics,
  entityRefOf,
  isHostedKind,
  type EntityContext,
  type EntityIds,
  type EntityEvent,
  type EntityInput,
  type EntityRef,
  type HostedKind,
} from './entity-machines.js';
import { PersistedSnapshot, type HostedEntity } from './hosted-entity.js';
import { cancelLiveWorkEffects } from './live-work-effects.js';
import type { DeliverOptions, EntityState, StepContext } from './step-context.js';
import type { Step } from './step.js';

export interface EntityHostDeps {
  store: Store;
  logger: Logger;
  /** How long a runtime request waits for an answer before it expires; null for ever. */
  requestTtlMs: number | null;
}

type Hosted<K extends HostedKind> = HostedEntity<EntityContext<K>, EntityEvent<K>>;
/** Each kind's live actors, so a lookup by kind yields that kind's typed actor; a kind's map is made on first use. */
type LiveTables = { [K in HostedKind]?: Map<string, Hosted<K>> };

/** Makes (once) the map of one kind: an idle thread holds only its supervisor's. */
const tableOf: { [K in HostedKind]: (tables: LiveTables) => Map<string, Hosted<K>> } = {
  thread_supervisor: (t) => (t.thread_supervisor ??= new Map<string, Hosted<'thread_supervisor'>>()),
  run: (t) => (t.run ??= new Map<string, Hosted<'run'>>()),
  run_attempt: (t) => (t.run_attempt ??= new Map<string, Hosted<'run_attempt'>>()),
  execution_node: (t) => (t.execution_node ??= new Map<string, Hosted<'execution_node'>>()),
  provider_session: (t) => (t.provider_session ??= new Map<string, Hosted<'provider_session'>>()),
  provider_thread: (t) => (t.provider_thread ??= new Map<string, Hosted<'provider_thread'>>()),
  runtime_request: (t) => (t.runtime_request ??= new Map<string, Hosted<'runtime_request'>>()),
  context_transfer: (t) => (t.context_transfer ??= new Map<string, Hosted<'context_transfer'>>()),
  context_handoff: (t) => (t.context_handoff ??= new Map<string, Hosted<'context_handoff'>>()),
};

/** A live entity whatever its kind: enough to persist, rest and evict it. */
interface LiveEntity {
  kind: HostedKind;
  id: string;
  entity: HostedEntity<unknown, never>;
}

/**
 * The entity actors of one AppThread, inside the step that runs now: loaded from their own
 * rows on first use, sent events, followed through what their machines emit (events,
 * effects, messages to other entities, new entities) until the step is quiet, and dropped
 * again once they rest, so an idle thread costs almost nothing.
 */
export class EntityHost implements StepContext {
  private readonly tables: LiveTables = {};
  private readonly live = new Map<string, LiveEntity>();
  private readonly dirty = new Map<string, LiveEntity>();
  private outputs: { from: LiveEntity; output: MachineOutput }[] = [];
  private work: (() => void)[] = [];
  private step: Step | null = null;

  constructor(
    readonly threadId: ThreadId,
    private readonly deps: EntityHostDeps,
  ) {}

  get requestTtlMs(): number | null {
    return this.deps.requestTtlMs;
  }

  get liveCount(): number {
    return this.live.size;
  }

  get current(): Step {
    if (!this.step) throw new Error('no step in progress');
    return this.step;
  }

  /** Starts a step: what the entities emit from now on goes into it. */
  begin(step: Step): void {
    this.step = step;
  }

  /** Follows outputs and queued deliveries until the step is quiet. */
  drain(): void {
    for (;;) {
      const next = this.outputs.shift();
      if (next) {
        this.handle(next.from, next.output);
        continue;
      }
      const item = this.work.shift();
      if (!item) return;
      item();
    }
  }

  /** Ends the step's in-memory work; returns the rows of the entities it changed. */
  end(): EntitySnapshotWrite[] {
    this.step = null;
    return [...this.dirty.values()].map((e) => ({
      entityId: e.id,
      kind: e.kind,
      threadId: this.threadId,
      machineId: entityLogics[e.kind].machineId,
      machineVersion: entityLogics[e.kind].version,
      snapshot: e.entity.persisted(),
    }));
  }

  /** After a commit: entities that rest (terminal) leave memory; their rows hold them. */
  rest(): void {
    for (const e of this.dirty.values()) {
      if (e.kind !== 'thread_supervisor' && e.entity.settled()) this.evict(e);
    }
    this.dirty.clear();
    const supervisor = this.tables.thread_supervisor?.get(this.threadId);
    if (!supervisor?.context().activeRunId)
      for (const e of [...this.live.values()]) if (e.kind !== 'thread_supervisor') this.evict(e);
  }

  /** Drops every in-memory change of a failed step: the rows on disk are the truth. */
  abandon(): void {
    this.step = null;
    this.outputs = [];
    this.work = [];
    this.dirty.clear();
    this.passivate();
  }

  passivate(): void {
    for (const e of [...this.live.values()]) this.evict(e);
  }

  // ---- the step context ----

  deliver<K extends HostedKind>(to: EntityRef<K>, event: EntityEvent<K>, options: DeliverOptions = {}): void {
    if (options.mustAccept) {
      const entity = this.require(to);
      if (!entity.can(event)) {
        throw new BatonError(
          'invalid_transition',
          `${to.kind} ${to.id} cannot take ${typeOf(event)} in state ${JSON.stringify(entity.value)}`,
          { entity: to, state: entity.value },
        );
      }
    }
    this.enqueue(to, event);
    this.drain();
  }

  enqueue<K extends HostedKind>(to: EntityRef<K>, event: EntityEvent<K>): void {
    this.work.push(() => this.sendNow(to, event));
  }

  deliverMessage(to: { kind: EntityKind; id: string }, event: EventObject): void {
    this.queueMessage(to, event);
    this.drain();
  }

  spawn<K extends HostedKind>(kind: K, id: EntityIds[K], input: EntityInput<K>): void {
    if (this.entity({ kind, id }) || this.live.has(id))
      throw new BatonError('conflict', `${kind} ${id} exists already`);
    this.attach({ kind, id }, entityLogics[kind].create(input));
    this.drain();
  }

  context<K extends HostedKind>(ref: EntityRef<K>): EntityContext<K> | null {
    return this.entity(ref)?.context() ?? null;
  }

  state<K extends HostedKind>(ref: EntityRef<K>): EntityState<K> | null {
    const entity = this.entity(ref);
    return entity ? new EntityStateNow(entity) : null;
  }

  require<K extends HostedKind>(ref: EntityRef<K>): EntityState<K> {
    const state = this.state(ref);
    if (!state) throw new BatonError('not_found', `no ${ref.kind} ${ref.id} on thread ${this.threadId}`);
    return state;
  }

  // ---- internals ----

  /** The live entity, loading it from its row if needed; null if the thread has no such entity. */
  private entity<K extends HostedKind>(ref: EntityRef<K>): Hosted<K> | null {
    const known = this.tables[ref.kind]?.get(ref.id);
    if (known) return known;
    if (this.live.has(ref.id)) return null;
    const row = this.deps.store.entities.get(ref.id);
    if (!row || row.kind !== ref.kind || row.threadId !== this.threadId) return null;
    const logic = entityLogics[ref.kind];
    if (row.machineVersion !== logic.version || row.machineId !== logic.machineId) {
      throw new BatonError(
        'internal',
        `${ref.kind} ${ref.id} was stored by ${row.machineId} v${row.machineVersion}; this Baton runs ${logic.machineId} v${logic.version} and has no migration for it`,
      );
    }
    const snapshot = PersistedSnapshot.safeParse(row.snapshot);
    if (!snapshot.success)
      throw new BatonError(
        'internal',
        `${ref.kind} ${ref.id} has a stored snapshot XState cannot restore: ${snapshot.error.message}`,
      );
    const entity = logic.restore(snapshot.data);
    this.attach(ref, entity, false);
    if (entity.status() === 'error')
      throw new BatonError('internal', `${ref.kind} ${ref.id} restored into an error state`);
    return entity;
  }

  private attach<K extends HostedKind>(ref: EntityRef<K>, entity: Hosted<K>, changed = true): void {
    const live: LiveEntity = { kind: ref.kind, id: ref.id, entity };
    entity.onOutput((output) => void this.outputs.push({ from: live, output }));
    tableOf[ref.kind](this.tables).set(ref.id, entity);
    this.live.set(ref.id, live);
    if (changed) this.dirty.set(ref.id, live);
    entity.start();
  }

  private evict(e: LiveEntity): void {
    e.entity.stop();
    this.live.delete(e.id);
    this.tables[e.kind]?.delete(e.id);
  }

  private sendNow<K extends HostedKind>(to: EntityRef<K>, event: EntityEvent<K>): void {
    const target = this.entity(to);
    if (!target) return this.dropForUnknown(to, typeOf(event));
    if (target.status() === 'done') {
      // A finished entity takes nothing more, and its row need not be rewritten. Late
      // provider events (a turn that completes after its run ended by policy) are normal.
      this.deps.logger.debug(
        { threadId: this.threadId, entity: to, event: typeOf(event) },
        'event for a finished entity ignored',
      );
      return;
    }
    target.send(event);
    const live = this.live.get(to.id);
    if (live) this.dirty.set(to.id, live);
  }

  private queueMessage(to: { kind: EntityKind; id: string }, event: EventObject): void {
    const kind = to.kind;
    const ref = isHostedKind(kind) ? entityRefOf(kind, to.id) : null;
    if (!ref) return void this.work.push(() => this.dropForUnknown(to, event.type));
    this.work.push(() => this.messageNow(ref, event));
  }

  private messageNow<K extends HostedKind>(to: EntityRef<K>, event: EventObject): void {
    const typed = entityLogics[to.kind].eventOf(event);
    // The machine has no such event: it would ignore it, so it is not sent.
    if (typed === null)
      return this.deps.logger.debug(
        { threadId: this.threadId, entity: to, event: event.type },
        'event its machine does not take ignored',
      );
    this.sendNow(to, typed);
  }

  private dropForUnknown(to: { kind: EntityKind; id: string }, type: string): void {
    this.current.addEvent({
      type: 'runtime.warning',
      payload: { threadId: this.threadId, runId: null, message: `${type} for unknown ${to.kind} ${to.id} was dropped` },
    });
  }

  private handle(from: LiveEntity, output: MachineOutput): void {
    const step = this.current;
    switch (output.type) {
      case 'domain':
        step.addEvent(output.event);
        return;
      case 'effect':
        // The machine names the effect's provider; the commit checks a provider effect has one.
        step.addEffect(output.effect, output.effect.provider);
        return;
      case 'send':
        this.sendFromOutput(output);
        return;
      case 'spawn':
        this.spawnFromOutput(output);
        return;
      case 'barrier':
        performBarrierStep(this, output.runId, output.step);
        return;
      case 'cancel_effects':
        cancelLiveWorkEffects(step, this.deps.store.outbox.open(this.threadId), output.runId, output.reason);
        return;
      case 'timer': {
        const timerId = timerIdOf(from.id, output.key);
        step.timers.push(
          output.op === 'schedule'
            ? {
                op: 'schedule',
                timerId,
                threadId: this.threadId,
                entityId: from.id,
                dueAt: output.dueAt,
                event: { kind: from.kind, event: output.event },
              }
            : { op: 'cancel', timerId },
        );
        return;
      }
    }
  }

  /** A machine's message (to an entity of its kind, an event of its machine): queued like any delivery. */
  private sendFromOutput<K extends HostedKind>(output: SendTo<K>): void {
    this.enqueue({ kind: output.to.kind, id: output.to.id }, output.event);
  }

  /** A machine's spawn: created in this step, no drain of its own (the drain running now follows it). */
  private spawnFromOutput<K extends HostedKind>(output: Spawn<K>): void {
    const { kind, id, input } = output.entity;
    this.attach({ kind, id }, entityLogics[kind].create(input));
  }
}

/** A timer's id is derived from its entity and key, so the entity can cancel what it scheduled. */
export const timerIdOf = (entityId: string, key: string): TimerId => idOf('timer', `tmr_${entityId}_${key}`);

const typeOf = (event: EventObject): string => event.type;

/**
 * An entity's state as a step reads it: its context, value and status when it was asked
 * for, and its tags and accepted events from the entity itself. A class, not an object of
 * arrow functions: those would be made (and, under tsx, named) on every read.
 */
class EntityStateNow<K extends HostedKind> implements EntityState<K> {
  readonly context: EntityContext<K>;
  readonly value: EntityState<K>['value'];
  readonly status: EntityState<K>['status'];

  constructor(private readonly entity: Hosted<K>) {
    this.context = entity.context();
    this.value = entity.value();
    this.status = entity.status();
  }

  hasTag(tag: string): boolean {
    return this.entity.hasTag(tag);
  }

  can(event: EntityEvent<K>): boolean {
    return this.entity.can(event);
  }
}
