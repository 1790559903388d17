import type { EventObject } from 'xstate';
import type { DomainOutput, MachineOutput } from './outputs.js';

/**
 * What every entity machine does when its status changes: record the new status in its
 * context and emit the domain event that tells the read models, in the same step. The
 * machines differ only in that event, and in whether a reason goes with the status.
 */

/** The tag of a state the entity rests in for good, unless rolled back or superseded. */
export const terminalTag = 'terminal';
export type EntityTag = typeof terminalTag;

/** An entity is over when its machine is done, or rests in a terminal state. */
export const isSettled = (snapshot: { status: string; hasTag(tag: EntityTag): boolean }): boolean =>
  snapshot.status === 'done' || snapshot.hasTag(terminalTag);

export interface StatusChange<S extends string> {
  from: S;
  to: S;
  /** Why, when the machine keeps a reason with its status; null otherwise. */
  reason: string | null;
}

/** The part of XState's `enqueue` a status change uses. */
interface StatusEnqueue<TContext> {
  assign(update: (args: { context: TContext }) => TContext): void;
  emit(output: MachineOutput): void;
}

interface StatusArgs<TContext> {
  context: TContext;
  event: EventObject;
  enqueue: StatusEnqueue<TContext>;
}

/** An `enqueueActions` body taking the new status as its params. */
export type StatusActionBody<TContext, S extends string> = (args: StatusArgs<TContext>, params: { to: S }) => void;

/**
 * The body of a machine's `setStatus` action (wrap it in `enqueueActions`): a status kept
 * with no reason, where a change is a new status.
 */
export function changeStatus<TContext extends { status: S }, S extends string>(
  record: (context: TContext, change: StatusChange<S>) => DomainOutput,
): StatusActionBody<TContext, S> {
  return ({ context, enqueue }, params) => {
    if (context.status === params.to) return;
    enqueue.emit(record(context, { from: context.status, to: params.to, reason: null }));
    enqueue.assign(({ context: c }) => ({ ...c, status: params.to }));
  };
}

/**
 * The same for a status kept with its reason, taken from the event that changed it (null
 * for an event without one). `reasonCounts`: the same status for a new reason is a change too.
 */
export function changeStatusWithReason<TContext extends { status: S; reason: string | null }, S extends string>(
  record: (context: TContext, change: StatusChange<S>) => DomainOutput,
  options: { reasonCounts: boolean },
): StatusActionBody<TContext, S> {
  return ({ context, event, enqueue }, params) => {
    const reason = 'reason' in event && typeof event.reason === 'string' ? event.reason : null;
    if (context.status === params.to && (!options.reasonCounts || context.reason === reason)) return;
    enqueue.assign(({ context: c }) => ({ ...c, status: params.to, reason }));
    enqueue.emit(record(context, { from: context.status, to: params.to, reason }));
  };
}

/**
 * Where an entity rests once it ended (`to`): tagged terminal, its status set (then `then`,
 * named actions), left only when a rollback takes its run back.
 */
export interface EndedState<S extends string, A extends string> {
  tags: EntityTag[];
  entry: ({ type: 'setStatus'; params: { to: S } } | A)[];
  on: { ROLLED_BACK: 'rolled_back' };
}

export function endedState<S extends string, A extends string>(to: S, ...then: A[]): EndedState<S, A> {
  return {
    tags: [terminalTag],
    entry: [{ type: 'setStatus', params: { to } }, ...then],
    on: { ROLLED_BACK: 'rolled_back' },
  };
}
