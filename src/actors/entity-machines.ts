import type { EntityKind } from '../domain/entities.js';
import {
  ContextHandoffId,
  ContextTransferId,
  NodeId,
  ProviderSessionId,
  ProviderThreadId,
  RunAttemptId,
  RunId,
  RuntimeRequestId,
  ThreadId,
} from '../domain/ids.js';
import {
  machinesByKind,
  machineVersions,
  type EntityContexts,
  type EntityEvents,
  type EntityIds,
  type EntityInputs,
  type MachineKind,
} from '../machines/index.js';
import { entityLogic, type EntityLogic } from './hosted-entity.js';

export type { EntityIds } from '../machines/index.js';

/**
 * The entity kinds that run as actors, and each one's context, events and input: the
 * machines' own declarations (machines/entity-messages.ts), which `entityLogics` below
 * checks against the machine each kind runs.
 */
export type HostedKind = MachineKind;
export type EntityContext<K extends HostedKind> = EntityContexts[K];
export type EntityEvent<K extends HostedKind> = EntityEvents[K];
export type EntityInput<K extends HostedKind> = EntityInputs[K];

/** Every hosted kind's context, events and input. */
export type EntityTypes = {
  [K in HostedKind]: { context: EntityContext<K>; event: EntityEvent<K>; input: EntityInput<K> };
};

const entityIdSchemas: {
  [K in HostedKind]: { safeParse(raw: unknown): { success: true; data: EntityIds[K] } | { success: false } };
} = {
  thread_supervisor: ThreadId,
  run: RunId,
  run_attempt: RunAttemptId,
  execution_node: NodeId,
  provider_session: ProviderSessionId,
  provider_thread: ProviderThreadId,
  runtime_request: RuntimeRequestId,
  context_transfer: ContextTransferId,
  context_handoff: ContextHandoffId,
};

/** A ref to the entity `id` names when it arrives as a plain string (a stored timer's): null if it is no id of that kind. */
export function entityRefOf<K extends HostedKind>(kind: K, id: string): EntityRef<K> | null {
  const parsed = entityIdSchemas[kind].safeParse(id);
  return parsed.success ? { kind, id: parsed.data } : null;
}

/** One entity actor of a thread, by kind and id. */
export interface EntityRef<K extends HostedKind = HostedKind> {
  readonly kind: K;
  readonly id: EntityIds[K];
}

export type EntityLogics = { [K in HostedKind]: EntityLogic<EntityContext<K>, EntityEvent<K>, EntityInput<K>> };

/** Each kind's logic, with the version of its machine that its rows are stored by. */
export const entityLogics: EntityLogics = {
  thread_supervisor: entityLogic(machinesByKind.thread_supervisor, machineVersions.thread_supervisor),
  run: entityLogic(machinesByKind.run, machineVersions.run),
  run_attempt: entityLogic(machinesByKind.run_attempt, machineVersions.run_attempt),
  execution_node: entityLogic(machinesByKind.execution_node, machineVersions.execution_node),
  provider_session: entityLogic(machinesByKind.provider_session, machineVersions.provider_session),
  provider_thread: entityLogic(machinesByKind.provider_thread, machineVersions.provider_thread),
  runtime_request: entityLogic(machinesByKind.runtime_request, machineVersions.runtime_request),
  context_transfer: entityLogic(machinesByKind.context_transfer, machineVersions.context_transfer),
  context_handoff: entityLogic(machinesByKind.context_handoff, machineVersions.context_handoff),
};

export const isHostedKind = (kind: EntityKind): kind is HostedKind => Object.hasOwn(entityLogics, kind);
