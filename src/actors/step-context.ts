import type { EventObject, Snapshot, StateValue } from 'xstate';
import type { EntityKind } from '../domain/entities.js';
import type { ThreadId } from '../domain/ids.js';
import type { EntityContext, EntityEvent, EntityIds, EntityInput, EntityRef, HostedKind } from './entity-machines.js';
import type { Step } from './step.js';

/** An entity actor's state as a step reads it, typed by its kind. */
export interface EntityState<K extends HostedKind> {
  readonly context: EntityContext<K>;
  readonly value: StateValue;
  readonly status: Snapshot<unknown>['status'];
  hasTag(tag: string): boolean;
  /** Whether the entity's machine would take `event` now. */
  can(event: EntityEvent<K>): boolean;
}

export interface DeliverOptions {
  /** Refuses (typed `invalid_transition`) an event the entity's machine cannot take now. */
  mustAccept?: boolean;
}

/**
 * What command handlers, provider routing, the barrier, rollback and effect settlement may
 * do inside one step of a thread: read and message its entity actors, each typed by its
 * kind, and add to the step. Entities are loaded from their rows on first use.
 */
export interface StepContext {
  readonly threadId: ThreadId;
  /** The step in progress (throws outside one). */
  readonly current: Step;
  /** How long a runtime request waits for an answer before it expires; null for ever. */
  readonly requestTtlMs: number | null;
  /** Delivers an event now, then follows what the machines emit until the step is quiet. */
  deliver<K extends HostedKind>(to: EntityRef<K>, event: EntityEvent<K>, options?: DeliverOptions): void;
  /** Queues a delivery behind the work already queued in this step (used while draining). */
  enqueue<K extends HostedKind>(to: EntityRef<K>, event: EntityEvent<K>): void;
  /**
   * Delivers an event known only at run time (a stored timer's): an entity whose machine
   * has no such event ignores it.
   */
  deliverMessage(to: { kind: EntityKind; id: string }, event: EventObject): void;
  /** Creates an entity actor (refused as a conflict if one exists with that id). */
  spawn<K extends HostedKind>(kind: K, id: EntityIds[K], input: EntityInput<K>): void;
  /** The entity's context, loading it from its row if needed; null if unknown. */
  context<K extends HostedKind>(ref: EntityRef<K>): EntityContext<K> | null;
  /** The entity's state, loading it from its row if needed; null if unknown. */
  state<K extends HostedKind>(ref: EntityRef<K>): EntityState<K> | null;
  /** Like `state`, refusing (typed `not_found`) an unknown entity. */
  require<K extends HostedKind>(ref: EntityRef<K>): EntityState<K>;
}
