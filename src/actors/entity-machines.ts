import type { AnyStateMachine } from 'xstate';
import type { EntityKind } from '../domain/entities.js';
import { EXECUTION_NODE_MACHINE_VERSION, executionNodeMachine } from '../machines/execution-node.machine.js';
import { PROVIDER_SESSION_MACHINE_VERSION, providerSessionMachine } from '../machines/provider-session.machine.js';
import { PROVIDER_THREAD_MACHINE_VERSION, providerThreadMachine } from '../machines/provider-thread.machine.js';
import { RUN_ATTEMPT_MACHINE_VERSION, runAttemptMachine } from '../machines/run-attempt.machine.js';
import { RUN_MACHINE_VERSION, runMachine } from '../machines/run.machine.js';
import { RUNTIME_REQUEST_MACHINE_VERSION, runtimeRequestMachine } from '../machines/runtime-request.machine.js';
import { THREAD_SUPERVISOR_MACHINE_VERSION, threadSupervisorMachine } from '../machines/thread-supervisor.machine.js';

export interface EntityMachine {
  machine: AnyStateMachine;
  version: number;
}

/** Which machine (and which version of it) runs each kind of entity actor. */
export const entityMachines: Partial<Record<EntityKind, EntityMachine>> = {
  thread_supervisor: { machine: threadSupervisorMachine, version: THREAD_SUPERVISOR_MACHINE_VERSION },
  run: { machine: runMachine, version: RUN_MACHINE_VERSION },
  run_attempt: { machine: runAttemptMachine, version: RUN_ATTEMPT_MACHINE_VERSION },
  execution_node: { machine: executionNodeMachine, version: EXECUTION_NODE_MACHINE_VERSION },
  provider_session: { machine: providerSessionMachine, version: PROVIDER_SESSION_MACHINE_VERSION },
  provider_thread: { machine: providerThreadMachine, version: PROVIDER_THREAD_MACHINE_VERSION },
  runtime_request: { machine: runtimeRequestMachine, version: RUNTIME_REQUEST_MACHINE_VERSION },
};

export function machineFor(kind: EntityKind): EntityMachine {
  const m = entityMachines[kind];
  if (!m) throw new Error(`no machine for entity kind ${kind}`);
  return m;
}
