import type { CommandId, EventId, IdFamily, IdOf, ThreadId } from '../domain/ids.js';
import type { EventType, NewEvent } from '../domain/events.js';
import type { NewEffect } from '../domain/effects.js';
import type { NewReceipt } from '../domain/receipts.js';
import type { IdentityBinding } from '../domain/entities.js';
import type { IdSource } from '../domain/sources.js';
import type { CommitUnit, EffectUpdate, EntitySnapshotWrite, TimerChange } from '../persistence/commit-unit.js';
import type { ProjectionTables } from '../persistence/projection-tables.js';
import { ProjectionOverlay } from '../projections/overlay.js';
import type { RowCache } from '../projections/row-cache.js';
import { project } from '../projections/projector.js';
import type { DomainOutputOf, EffectOutput } from '../machines/outputs.js';

/**
 * Everything one mailbox turn of a thread produces: the domain events (projected as they
 * are added, so later work in the same step sees them), outbox effects, effect updates and
 * the receipt. It becomes exactly one commit unit.
 */
export class Step {
  readonly events: NewEvent[] = [];
  readonly effects: NewEffect[] = [];
  readonly effectUpdates: EffectUpdate[] = [];
  readonly timers: TimerChange[] = [];
  readonly bindings: IdentityBinding[] = [];
  readonly view: ProjectionOverlay;
  receipt: NewReceipt | undefined;

  constructor(
    readonly threadId: ThreadId,
    readonly at: number,
    private readonly ids: IdSource,
    projections: ProjectionTables,
    readonly commandId: CommandId | null,
    private readonly causationId: EventId | null,
    cache?: RowCache,
  ) {
    this.view = new ProjectionOverlay(projections, cache);
  }

  newId<F extends IdFamily>(family: F): IdOf[F] {
    return this.ids.next(family);
  }

  /**
   * Adds a domain event, projected at once (later work in the step sees it). Its type and
   * payload come as one `{ type, payload }` of the same K: each type is checked against its
   * own payload.
   */
  addEvent<K extends EventType>(event: DomainOutputOf<K>['event']): void {
    // Field by field, not by spreading `event`: V8 copies a spread into an object literal
    // through its generic path, which cost about 5 µs a step (measured in-process).
    const { type, payload } = event;
    const stored: NewEvent<K> = {
      eventId: this.ids.next('event'),
      type,
      threadId: this.threadId,
      payload,
      commandId: this.commandId,
      causationId: this.causationId,
    };
    // A NewEvent<K> is one of NewEvent's members; TypeScript does not see it through a generic K.
    this.events.push(stored as NewEvent);
    project({ type, payload, threadId: this.threadId, at: this.at }, this.view);
  }

  addEffect(effect: EffectOutput['effect'], provider: NewEffect['provider']): void {
    this.effects.push({
      id: this.ids.next('effect'),
      kind: effect.kind,
      threadId: this.threadId,
      runId: effect.runId,
      nodeId: effect.nodeId,
      provider,
      payload: effect.payload,
      // The effect was asked for by the latest event of this step.
      causationEventId: this.events.at(-1)?.eventId ?? null,
      commandId: this.commandId,
    });
  }

  toUnit(snapshots: EntitySnapshotWrite[]): CommitUnit {
    return {
      events: this.events,
      snapshots,
      projections: this.view.changes(),
      effects: this.effects,
      effectUpdates: this.effectUpdates,
      timers: this.timers,
      bindings: this.bindings,
      ...(this.receipt ? { receipt: this.receipt } : {}),
      at: this.at,
    };
  }
}
