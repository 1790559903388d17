import type { EffectKind } from '../domain/effects.js';
import type { EntityKind } from '../domain/entities.js';
import type { EventPayload, EventType } from '../domain/events.js';
import type { ProviderKind } from '../domain/statuses.js';

/**
 * What a machine may say to the world. Machines are pure: they never write, call or
 * allocate. They `emit` these outputs, and the actor runtime turns them into domain
 * events, outbox effects and messages to other entities, all inside one commit.
 */

/** A domain event to append; the runtime adds eventId, threadId, commandId and causation. */
export type DomainOutput = {
  [K in EventType]: { type: 'domain'; event: { type: K; payload: EventPayload<K> } };
}[EventType];

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
    runId: string | null;
    nodeId: string | null;
    payload: Record<string, unknown>;
  };
}

/** A message to another entity of the same thread, delivered within the same step. */
export interface SendOutput {
  type: 'send';
  to: { kind: EntityKind; id: string };
  event: { type: string; [key: string]: unknown };
}

/** A new entity actor, created within the same step. */
export interface SpawnOutput {
  type: 'spawn';
  entity: { kind: EntityKind; id: string; input: Record<string, unknown> };
}

/** Asks the runtime to carry out one in-memory step of a run's finalization barrier. */
export interface BarrierOutput {
  type: 'barrier';
  runId: string;
  step: 'flush_text' | 'close_messages' | 'finalize_plans' | 'close_children';
}

/**
 * A durable timer (XState delays are not persisted): due at `dueAt`, it delivers `event` back
 * to the entity that scheduled it. `key` names it within that entity, for cancelling.
 */
export type TimerOutput =
  | { type: 'timer'; op: 'schedule'; key: string; dueAt: number; event: { type: string; [k: string]: unknown } }
  | { type: 'timer'; op: 'cancel'; key: string };

/**
 * A run's live provider work is over: its provider effects still waiting in the outbox
 * (turn start, steer, interrupt, an answer) are cancelled, with `reason`, in this commit.
 */
export interface CancelEffectsOutput {
  type: 'cancel_effects';
  runId: string;
  reason: string;
}

export type MachineOutput = DomainOutput | EffectOutput | SendOutput | SpawnOutput | BarrierOutput | TimerOutput | CancelEffectsOutput;

export const domain = <K extends EventType>(type: K, payload: EventPayload<K>): DomainOutput =>
  ({ type: 'domain', event: { type, payload } }) as DomainOutput;
