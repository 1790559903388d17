import { z } from 'zod';
import { CommandId, EffectId, EventId, NodeId, RunId, ThreadId } from './ids.js';
import { ProviderKind } from './statuses.js';

/**
 * Side effects leave the runtime only as outbox rows, written in the same transaction as
 * the state change that asked for them and carried out by a worker after commit.
 */
export const EffectKind = z.enum([
  'provider.session.ensure',
  'provider.turn.start',
  'provider.turn.steer',
  'provider.turn.interrupt',
  'provider.runtime-request.respond',
  'provider.thread.rollback',
  'provider.thread.fork',
  'provider.thread.resume',
  'provider.session.stop',
  'checkpoint.baseline',
  'checkpoint.capture',
  'checkpoint.restore',
  'delegated-tasks.stop',
]);
export type EffectKind = z.infer<typeof EffectKind>;

export const EffectStatus = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export type EffectStatus = z.infer<typeof EffectStatus>;

export const NewEffect = z.object({
  id: EffectId,
  kind: EffectKind,
  threadId: ThreadId,
  runId: RunId.nullable(),
  nodeId: NodeId.nullable(),
  provider: ProviderKind.nullable(),
  payload: z.record(z.string(), z.unknown()),
  causationEventId: EventId.nullable(),
  commandId: CommandId.nullable(),
});
export type NewEffect = z.infer<typeof NewEffect>;

export const Effect = NewEffect.extend({
  status: EffectStatus,
  attempts: z.number().int().nonnegative(),
  lastError: z.string().nullable(),
  leaseOwner: z.string().nullable(),
  leaseExpiresAt: z.number().int().nullable(),
  availableAt: z.number().int(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type Effect = z.infer<typeof Effect>;
