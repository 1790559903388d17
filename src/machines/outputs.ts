import type { EffectKind } from '../domain/effects.js';
import type { EventPayload, EventType } from '../domain/events.js';
import type { NodeId, RunId } from '../domain/ids.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { BarrierStep, EntityEvents, EntityIds, EntityInputs, MachineKind } from './entity-messages.js';

/**
 * What a machine may say to the world. Machines are pure: they never write, call or
 * allocate. They `emit` these outputs, and the actor runtime turns them into domain
 * events, outbox effects and messages to other entities, all inside one commit.
 */

/** A domain event to append; the runtime adds eventId, threadId, commandId and causation. */
export interface DomainOutputOf<K extends EventType> {
  type: 'domain';
  event: { type: K; payload: EventPayload<K> };
}
export type DomainOutput = { [K in EventType]: DomainOutputOf<K> }[EventType];

/**
 * A side effect for the outbox; the runtime adds its id and causation. The machine names
 * whose effect it is (the worker dispatches a provider effect on it): a provider effect's
 * provider, null for Baton's own (checkpoints).
 */
export interface EffectOutput {
  type: 'effect';
  effect: {
    kind: EffectKind;
    provider: ProviderKind | null;
    runId: RunId | null;
    nodeId: NodeId | null;
    payload: Record<string, unknown>;
  };
}

/** A message to another entity of the same thread, delivered within the same step: an event its machine takes. */
export interface SendTo<K extends MachineKind> {
  type: 'send';
  to: { kind: K; id: EntityIds[K] };
  event: EntityEvents[K];
}
export type SendOutput = { [K in MachineKind]: SendTo<K> }[MachineKind];

/** A new entity actor of kind K, created within the same step, with its machine's input. */
export interface Spawn<K extends MachineKind> {
  type: 'spawn';
  entity: { kind: K; id: EntityIds[K]; input: EntityInputs[K] };
}
export type SpawnOutput = { [K in MachineKind]: Spawn<K> }[MachineKind];

/** Asks the runtime to carry out one in-memory step of a run's finalization barrier. */
export interface BarrierOutput {
  type: 'barrier';
  runId: RunId;
  step: BarrierStep;
}

/**
 * A durable timer (XState delays are not persisted): due at `dueAt`, it delivers `event` back
 * to the entity that scheduled it. `key` names it within that entity, for cancelling.
 */
export type TimerOutput =
  | { type: 'timer'; op: 'schedule'; key: string; dueAt: number; event: EntityEvents[MachineKind] }
  | { type: 'timer'; op: 'cancel'; key: string };

/**
 * A run's live provider work is over: its provider effects still waiting in the outbox
 * (turn start, steer, interrupt, an answer) are cancelled, with `reason`, in this commit.
 */
export interface CancelEffectsOutput {
  type: 'cancel_effects';
  runId: RunId;
  reason: string;
}

export type MachineOutput =
  DomainOutput | EffectOutput | SendOutput | SpawnOutput | BarrierOutput | TimerOutput | CancelEffectsOutput;

export const domain = <K extends EventType>(type: K, payload: EventPayload<K>): DomainOutputOf<K> => ({
  type: 'domain',
  event: { type, payload },
});

/**
 * One action's pure work, worked out from the context and the event: the context fields it
 * changes (the action applies them with `assign`) and what it emits, in order.
 */
export interface MachineStep<C> {
  assign: Partial<C>;
  outputs: MachineOutput[];
}

/** The part of XState's `enqueue` a step needs. */
interface StepEnqueue<C> {
  assign(values: Partial<C>): void;
  emit(output: MachineOutput): void;
}

/**
 * Applies a step inside `enqueueActions`: its context change, then its outputs in order.
 * The outputs are built already, from the context before the action, so the change they
 * are applied beside cannot alter them.
 */
export function applyStep<C>(enqueue: StepEnqueue<C>, step: MachineStep<C>): void {
  enqueue.assign(step.assign);
  for (const o of step.outputs) enqueue.emit(o);
}
