import type { CommandId, EffectId, EventId, ThreadId } from '../domain/ids.js';
import type { EventPayload, EventType, NewEvent } from '../domain/events.js';
import type { NewEffect } from '../domain/effects.js';
import type { NewReceipt } from '../domain/receipts.js';
import type { IdentityBinding } from '../domain/entities.js';
import type { IdSource } from '../domain/sources.js';
import type { IdFamily } from '../domain/ids.js';
import type { CommitUnit, EffectUpdate, EntitySnapshotWrite, TimerChange } from '../persistence/commit-unit.js';
import type { ProjectionTables } from '../persistence/projection-tables.js';
import { ProjectionOverlay } from '../projections/overlay.js';
import type { RowCache } from '../projections/row-cache.js';
import { project } from '../projections/projector.js';
import type { EffectOutput } from '../machines/outputs.js';

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
    readonly threadId: string,
    readonly at: number,
    private readonly ids: IdSource,
    projections: ProjectionTables,
    readonly commandId: string | null,
    private readonly causationId: string | null,
    cache?: RowCache,
  ) {
    this.view = new ProjectionOverlay(projections, cache);
  }

  newId(family: IdFamily): string {
    return this.ids.next(family);
  }

  addEvent<K extends EventType>(type: K, payload: EventPayload<K>): void {
    const event = {
      eventId: this.ids.next('event') as EventId,
      type,
      threadId: this.threadId as ThreadId,
      payload,
      commandId: this.commandId as CommandId | null,
      causationId: this.causationId as EventId | null,
    } as NewEvent;
    this.events.push(event);
    project({ type, payload, threadId: this.threadId as ThreadId, at: this.at } as never, this.view);
  }

  addEffect(effect: EffectOutput['effect'], provider: NewEffect['provider']): void {
    this.effects.push({
      id: this.ids.next('effect') as EffectId,
      kind: effect.kind,
      threadId: this.threadId as ThreadId,
      runId: effect.runId as never,
      nodeId: effect.nodeId as never,
      provider,
      payload: effect.payload,
      // The effect was asked for by the latest event of this step.
      causationEventId: (this.events.at(-1)?.eventId ?? null) as EventId | null,
      commandId: this.commandId as CommandId | null,
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
