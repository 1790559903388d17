import { z } from 'zod';
import type { Effect } from '../domain/effects.js';
import { ForkOrigin } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';
import { InteractionMode, RuntimeMode } from '../domain/statuses.js';

/**
 * Reading an outbox effect's payload in a provider: the row is an edge (it was written by
 * another process, maybe another version), so its payload is parsed with its kind's catalog
 * schema (`effectPayloads`) and a bad one is a typed `invalid_payload`, not a cast.
 */

/** The payload, read through `schema` (`effectPayloads[effect.kind]`). */
export function payloadOf<S extends z.ZodType>(schema: S, effect: Effect): z.output<S> {
  const parsed = schema.safeParse(effect.payload);
  if (!parsed.success)
    throw new BatonError('invalid_payload', `a ${effect.kind} effect without what it needs: ${parsed.error.message}`);
  return parsed.data;
}

/** The fork a turn start continues, if it is a fork's first run. */
export function forkOf(payload: Record<string, unknown>): ForkOrigin | null {
  if (payload.fork === undefined || payload.fork === null) return null;
  const parsed = ForkOrigin.safeParse(payload.fork);
  if (!parsed.success)
    throw new BatonError('invalid_payload', `a turn start with an unreadable fork origin: ${parsed.error.message}`);
  return parsed.data;
}

/** The thread settings a run starts with; they travel on its `provider.turn.start` effect. */
export interface TurnSettings {
  model: string | null;
  runtimeMode: RuntimeMode;
  interactionMode: InteractionMode;
}

/** The settings a `provider.turn.start` payload carries (validated: the outbox row is an edge). */
const PayloadSettings = z.object({
  model: z.string().nullable().default(null),
  runtimeMode: RuntimeMode,
  interactionMode: InteractionMode,
});

export function turnSettingsOf(payload: Record<string, unknown>): TurnSettings {
  const parsed = PayloadSettings.safeParse(payload);
  if (!parsed.success)
    throw new BatonError('invalid_payload', `a turn start without its thread settings: ${parsed.error.message}`);
  return parsed.data;
}
