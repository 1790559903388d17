import { z } from 'zod';
import { ApprovalDecision, ProviderKind } from './statuses.js';
import {
  CheckpointId,
  CommandId,
  EffectId,
  EventId,
  NodeId,
  ProviderSessionId,
  ProviderThreadId,
  RunAttemptId,
  RunId,
  RuntimeRequestId,
  ThreadId,
} from './ids.js';

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
  'checkpoint.materialize',
  'delegated-tasks.stop',
]);
export type EffectKind = z.infer<typeof EffectKind>;

/** The kinds a provider carries out (the worker dispatches them on the effect's provider); the rest are Baton's own. */
export type ProviderEffectKind = Extract<EffectKind, `provider.${string}`>;
export type RuntimeEffectKind = Exclude<EffectKind, ProviderEffectKind>;
export const isProviderEffectKind = (kind: EffectKind): kind is ProviderEffectKind => kind.startsWith('provider.');

export const EffectStatus = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export type EffectStatus = z.infer<typeof EffectStatus>;

const Answers = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
const open = z.record(z.string(), z.unknown());

/**
 * What each kind's payload must hold, checked when a unit is committed (like the event
 * catalog): a machine that asks for an effect without what its handler needs is refused
 * in the step that asked, not discovered by the worker later. The shapes are open (a
 * turn start carries the run's settings too); only what handlers read is required.
 */
export const effectPayloads = {
  'provider.session.ensure': z.looseObject({
    providerThreadId: ProviderThreadId.nullable().optional(),
    acpAgent: z.string().nullable().optional(),
  }),
  'provider.turn.start': z.looseObject({
    attemptId: RunAttemptId,
    rootNodeId: NodeId,
    text: z.string(),
    providerThreadId: ProviderThreadId.nullable().optional(),
    /** The ACP agent the thread runs (null on other providers; absent on rows written before it existed). */
    acpAgent: z.string().nullable().optional(),
  }),
  'provider.turn.steer': z.looseObject({ attemptId: RunAttemptId.nullable(), text: z.string(), messageId: z.string() }),
  'provider.turn.interrupt': z.looseObject({ attemptId: RunAttemptId.nullable(), reason: z.string().optional() }),
  'provider.runtime-request.respond': z.looseObject({
    requestId: RuntimeRequestId,
    providerSessionId: ProviderSessionId,
    decision: ApprovalDecision.nullable(),
    answers: Answers.nullable(),
  }),
  'provider.thread.rollback': z.looseObject({
    providerThreadId: ProviderThreadId,
    /** Keep this run and those before it: the provider drops its turns of later runs (after switches, not every later run is its own). */
    runOrdinal: z.number().int(),
  }),
  'provider.thread.fork': open,
  'provider.thread.resume': open,
  'provider.session.stop': z.looseObject({ reason: z.string() }),
  'checkpoint.baseline': z.looseObject({ ordinal: z.number().int() }),
  'checkpoint.capture': open,
  'checkpoint.restore': open,
  /** A fork's own workspace, written from its fork point's checkpoint (a capture of the source's workspace). */
  'checkpoint.materialize': z.looseObject({
    checkpointId: CheckpointId,
    treeRef: z.string().min(1),
    sourceCwd: z.string().min(1),
    cwd: z.string().min(1),
  }),
  'delegated-tasks.stop': open,
} satisfies Record<EffectKind, z.ZodType<Record<string, unknown>>>;
export type EffectPayload<K extends EffectKind> = z.infer<(typeof effectPayloads)[K]>;

const effectFields = {
  id: EffectId,
  kind: EffectKind,
  threadId: ThreadId,
  runId: RunId.nullable(),
  nodeId: NodeId.nullable(),
  /** Whose effect it is: required for every provider kind (the worker dispatches on it), null for Baton's own. */
  provider: ProviderKind.nullable(),
  payload: z.record(z.string(), z.unknown()),
  causationEventId: EventId.nullable(),
  commandId: CommandId.nullable(),
};

/** A new effect: its payload is checked against its kind's catalog entry, and a provider effect must name its provider. */
export const NewEffect = z.object(effectFields).superRefine((effect, ctx) => {
  if (isProviderEffectKind(effect.kind) && effect.provider === null) {
    ctx.addIssue({ code: 'custom', path: ['provider'], message: `a ${effect.kind} effect must name its provider` });
  }
  const payload = effectPayloads[effect.kind].safeParse(effect.payload);
  if (!payload.success)
    for (const issue of payload.error.issues)
      ctx.addIssue({ code: 'custom', path: ['payload', ...issue.path], message: issue.message });
});
export type NewEffect = z.infer<typeof NewEffect>;

export const Effect = z.object(effectFields).extend({
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
