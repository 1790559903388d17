import type { z } from 'zod';
import type { Effect } from '../domain/effects.js';
import { ForkOrigin } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';

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
