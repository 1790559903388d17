import { z } from 'zod';

/**
 * App-owned ids, one branded family each, so a RunId can never be passed where a
 * ThreadId is expected. Provider ids are never app ids: they live in identity bindings.
 * Ids arrive from an injected IdSource, so tests and replays are deterministic.
 */
const appId = <B extends string>(brand: B) =>
  z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'ids use letters, digits and _ . : -')
    .brand<B>();

/**
 * An id a client chooses for a new entity: in its family's format (`thr_...`), so it can
 * never pass for the id of a run, a provider thread or any other family.
 */
const newAppId = <B extends string>(brand: B, family: IdFamily) =>
  z
    .string()
    .max(200)
    .regex(
      new RegExp(`^${idPrefixes[family]}_[A-Za-z0-9_.:-]+$`),
      `a new ${family} id is ${idPrefixes[family]}_ then letters, digits and _ . : -`,
    )
    .brand<B>();

export const ThreadId = appId('ThreadId');
export const RunId = appId('RunId');
export const RunAttemptId = appId('RunAttemptId');
export const NodeId = appId('NodeId');
export const MessageId = appId('MessageId');
export const TurnItemId = appId('TurnItemId');
export const PlanArtifactId = appId('PlanArtifactId');
export const ProviderSessionId = appId('ProviderSessionId');
export const ProviderThreadId = appId('ProviderThreadId');
export const ProviderTurnId = appId('ProviderTurnId');
export const RuntimeRequestId = appId('RuntimeRequestId');
export const ContextTransferId = appId('ContextTransferId');
export const ContextHandoffId = appId('ContextHandoffId');
export const CheckpointScopeId = appId('CheckpointScopeId');
export const CheckpointId = appId('CheckpointId');
export const EventId = appId('EventId');
export const CommandId = appId('CommandId');
export const EffectId = appId('EffectId');
export const TimerId = appId('TimerId');

export type ThreadId = z.infer<typeof ThreadId>;
export type RunId = z.infer<typeof RunId>;
export type RunAttemptId = z.infer<typeof RunAttemptId>;
export type NodeId = z.infer<typeof NodeId>;
export type MessageId = z.infer<typeof MessageId>;
export type TurnItemId = z.infer<typeof TurnItemId>;
export type PlanArtifactId = z.infer<typeof PlanArtifactId>;
export type ProviderSessionId = z.infer<typeof ProviderSessionId>;
export type ProviderThreadId = z.infer<typeof ProviderThreadId>;
export type ProviderTurnId = z.infer<typeof ProviderTurnId>;
export type RuntimeRequestId = z.infer<typeof RuntimeRequestId>;
export type ContextTransferId = z.infer<typeof ContextTransferId>;
export type ContextHandoffId = z.infer<typeof ContextHandoffId>;
export type CheckpointScopeId = z.infer<typeof CheckpointScopeId>;
export type CheckpointId = z.infer<typeof CheckpointId>;
export type EventId = z.infer<typeof EventId>;
export type CommandId = z.infer<typeof CommandId>;
export type EffectId = z.infer<typeof EffectId>;
export type TimerId = z.infer<typeof TimerId>;

/** The prefix each family's generated ids carry, so a stray id is recognisable in logs. */
export const idPrefixes = {
  thread: 'thr',
  run: 'run',
  attempt: 'att',
  node: 'node',
  message: 'msg',
  turnItem: 'item',
  plan: 'plan',
  providerSession: 'psess',
  providerThread: 'pthr',
  providerTurn: 'pturn',
  request: 'req',
  contextTransfer: 'xfer',
  contextHandoff: 'hand',
  checkpointScope: 'cscope',
  checkpoint: 'ckpt',
  event: 'evt',
  command: 'cmd',
  effect: 'eff',
  timer: 'tmr',
} as const;

export type IdFamily = keyof typeof idPrefixes;

/** The branded id type of each family: what an IdSource hands out for it. */
export interface IdOf {
  thread: ThreadId;
  run: RunId;
  attempt: RunAttemptId;
  node: NodeId;
  message: MessageId;
  turnItem: TurnItemId;
  plan: PlanArtifactId;
  providerSession: ProviderSessionId;
  providerThread: ProviderThreadId;
  providerTurn: ProviderTurnId;
  request: RuntimeRequestId;
  contextTransfer: ContextTransferId;
  contextHandoff: ContextHandoffId;
  checkpointScope: CheckpointScopeId;
  checkpoint: CheckpointId;
  event: EventId;
  command: CommandId;
  effect: EffectId;
  timer: TimerId;
}

const idSchemas: { [F in IdFamily]: { parse(raw: unknown): IdOf[F] } } = {
  thread: ThreadId,
  run: RunId,
  attempt: RunAttemptId,
  node: NodeId,
  message: MessageId,
  turnItem: TurnItemId,
  plan: PlanArtifactId,
  providerSession: ProviderSessionId,
  providerThread: ProviderThreadId,
  providerTurn: ProviderTurnId,
  request: RuntimeRequestId,
  contextTransfer: ContextTransferId,
  contextHandoff: ContextHandoffId,
  checkpointScope: CheckpointScopeId,
  checkpoint: CheckpointId,
  event: EventId,
  command: CommandId,
  effect: EffectId,
  timer: TimerId,
};

/** A freshly made id of `family`, checked against its schema (about half a microsecond), so it carries the family's brand. */
export const idOf = <F extends IdFamily>(family: F, raw: string): IdOf[F] => idSchemas[family].parse(raw);

/** A thread id a client picks in thread.create or thread.fork. */
export const NewThreadId = newAppId('ThreadId', 'thread');
