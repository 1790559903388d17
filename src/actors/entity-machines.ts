import type { AnyStateMachine } from 'xstate';
import type { EntityKind } from '../domain/entities.js';
import { allMachines } from '../machines/index.js';

export interface EntityMachine {
  machine: AnyStateMachine;
  version: number;
}

const byName = Object.fromEntries(allMachines.map((m) => [m.name, { machine: m.machine, version: m.version }]));

/** Which machine (and which version of it) runs each kind of entity actor. */
export const entityMachines: Partial<Record<EntityKind, EntityMachine>> = {
  thread_supervisor: byName['thread-supervisor'],
  run: byName['run'],
  run_attempt: byName['run-attempt'],
  execution_node: byName['execution-node'],
  provider_session: byName['provider-session'],
  provider_thread: byName['provider-thread'],
  runtime_request: byName['runtime-request'],
};

export function machineFor(kind: EntityKind): EntityMachine {
  const m = entityMachines[kind];
  if (!m) throw new Error(`no machine for entity kind ${kind}`);
  return m;
}
