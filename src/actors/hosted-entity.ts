import {
  Actor,
  type EventObject,
  type MachineContext,
  type Snapshot,
  type StateMachine,
  type StateValue,
} from 'xstate';
import { z } from 'zod';
import type { MachineOutput } from '../machines/outputs.js';
import { isSettled } from '../machines/status-actions.js';
import { persistedSnapshotOf } from './persisted-snapshot.js';

/**
 * One entity actor as the host uses it: typed by its machine's context and events, so
 * nothing outside this file touches XState's actor types or casts a context.
 */
export interface HostedEntity<C, E extends EventObject> {
  context(): C;
  value(): StateValue;
  status(): Snapshot<unknown>['status'];
  hasTag(tag: string): boolean;
  /** Done, or resting in a terminal state (see `isSettled`). */
  settled(): boolean;
  can(event: E): boolean;
  send(event: E): void;
  persisted(): unknown;
  onOutput(listener: (output: MachineOutput) => void): void;
  start(): void;
  stop(): void;
}

/** How an entity kind's actors are made: new from an input, or restored from a stored snapshot. */
export interface EntityLogic<C, E extends EventObject, I> {
  readonly machineId: string;
  readonly version: number;
  create(input: I): HostedEntity<C, E>;
  restore(snapshot: Snapshot<unknown>): HostedEntity<C, E>;
  /** An event whose type is known only at run time (a stored timer's), or null if the machine takes no such event. */
  eventOf(event: EventObject): E | null;
}

/**
 * A machine Baton hosts: any context, events, input and tags, emitting MachineOutput. The
 * other type parameters (children, actions, guards, ...) are the machine's own business,
 * left open here; the host never touches them.
 */
type HostableMachine<C extends MachineContext, E extends EventObject, I, T extends string> = StateMachine<
  C,
  E,
  any,
  any,
  any,
  any,
  any,
  any,
  T,
  I,
  any,
  MachineOutput,
  any,
  any
>;

/**
 * The logic of one kind of entity. Actors are made with `new Actor` (what `createActor`
 * does): its options are typed without the conditional that makes `input` required, so a
 * restored snapshot needs no cast.
 */
export function entityLogic<C extends MachineContext, E extends EventObject, I, T extends string>(
  machine: HostableMachine<C, E, I, T>,
  version: number,
): EntityLogic<C, E, I> {
  const types = new Set(machine.events.map(String));
  // XState descriptors: an exact type, `*`, or a prefix wildcard such as `TURN.*`.
  const prefixes = [...types].filter((t) => t.endsWith('.*')).map((t) => t.slice(0, -1));
  const takes = (type: string): boolean =>
    types.has(type) || types.has('*') || prefixes.some((p) => type.startsWith(p));
  /*
   * Machines' messages and spawns are typed per kind (SendTo and Spawn in machines/outputs.ts),
   * but a durable timer's event comes back from its row as JSON: this check is where it
   * becomes the machine's own type again, by its type (a machine ignores any other anyway).
   */
  const isEvent = (event: EventObject): event is E => takes(event.type);
  return {
    machineId: machine.id,
    version,
    create: (input) => new HostedActor(new Actor(machine, { input })),
    restore: (snapshot) => new HostedActor(new Actor(machine, { snapshot })),
    eventOf: (event) => (isEvent(event) ? event : null),
  };
}

/** An XState actor behind the HostedEntity interface (methods on the prototype: an idle thread keeps one per entity). */
class HostedActor<C extends MachineContext, E extends EventObject, I, T extends string> implements HostedEntity<C, E> {
  constructor(private readonly actor: Actor<HostableMachine<C, E, I, T>>) {}
  context(): C {
    return this.actor.getSnapshot().context;
  }
  value(): StateValue {
    return this.actor.getSnapshot().value;
  }
  status(): Snapshot<unknown>['status'] {
    return this.actor.getSnapshot().status;
  }
  hasTag(tag: string): boolean {
    // A machine's tags are its own literal union; any string may be asked about.
    const tags: ReadonlySet<string> = this.actor.getSnapshot().tags;
    return tags.has(tag);
  }
  settled(): boolean {
    return isSettled({ status: this.status(), hasTag: (tag) => this.hasTag(tag) });
  }
  can(event: E): boolean {
    return this.actor.getSnapshot().can(event);
  }
  send(event: E): void {
    this.actor.send(event);
  }
  persisted(): unknown {
    return persistedSnapshotOf(this.actor.getSnapshot()) ?? this.actor.getPersistedSnapshot();
  }
  onOutput(listener: (output: MachineOutput) => void): void {
    this.actor.on('*', listener);
  }
  start(): void {
    this.actor.start();
  }
  stop(): void {
    this.actor.stop();
  }
}

/** Absent in stored JSON when undefined (`undefined` is not written). */
const unset = z
  .undefined()
  .optional()
  .transform((): undefined => undefined);
const anyValue = z
  .unknown()
  .optional()
  .transform((value): unknown => value);

/**
 * A stored row's snapshot, as `new Actor` takes it: XState's persisted snapshot with its
 * status (the rest, its state value and context, XState restores from as it is).
 */
export const PersistedSnapshot = z.discriminatedUnion('status', [
  z.looseObject({ status: z.literal('active'), output: unset, error: unset }),
  z.looseObject({ status: z.literal('done'), output: anyValue, error: unset }),
  z.looseObject({ status: z.literal('error'), output: unset, error: anyValue }),
  z.looseObject({ status: z.literal('stopped'), output: unset, error: unset }),
]);
