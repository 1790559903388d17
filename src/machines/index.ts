import type { AnyStateMachine } from 'xstate';
import type { MachineKind } from './entity-messages.js';
import {
  CONTEXT_HANDOFF_MACHINE_VERSION,
  contextHandoffMachine,
  type ContextHandoffContext,
} from './context-handoff.machine.js';
import {
  CONTEXT_TRANSFER_MACHINE_VERSION,
  contextTransferMachine,
  type ContextTransferContext,
} from './context-transfer.machine.js';
import {
  EXECUTION_NODE_MACHINE_VERSION,
  executionNodeMachine,
  type ExecutionNodeContext,
} from './execution-node.machine.js';
import {
  PROVIDER_SESSION_MACHINE_VERSION,
  providerSessionMachine,
  type ProviderSessionContext,
} from './provider-session.machine.js';
import {
  PROVIDER_THREAD_MACHINE_VERSION,
  providerThreadMachine,
  type ProviderThreadContext,
} from './provider-thread.machine.js';
import { RUN_ATTEMPT_MACHINE_VERSION, runAttemptMachine, type RunAttemptContext } from './run-attempt.machine.js';
import { RUN_MACHINE_VERSION, runMachine, type RunContext } from './run.machine.js';
import {
  RUNTIME_REQUEST_MACHINE_VERSION,
  runtimeRequestMachine,
  type RuntimeRequestContext,
} from './runtime-request.machine.js';
import {
  THREAD_SUPERVISOR_MACHINE_VERSION,
  threadSupervisorMachine,
  type ThreadSupervisorContext,
} from './thread-supervisor.machine.js';

/** The machine each kind of entity runs, typed per kind (its input, events and context). */
export const machinesByKind = {
  thread_supervisor: threadSupervisorMachine,
  run: runMachine,
  run_attempt: runAttemptMachine,
  execution_node: executionNodeMachine,
  runtime_request: runtimeRequestMachine,
  provider_session: providerSessionMachine,
  provider_thread: providerThreadMachine,
  context_transfer: contextTransferMachine,
  context_handoff: contextHandoffMachine,
} satisfies Record<MachineKind, AnyStateMachine>;

/** The version of each kind's machine its stored snapshots were written by. */
export const machineVersions: Record<MachineKind, number> = {
  thread_supervisor: THREAD_SUPERVISOR_MACHINE_VERSION,
  run: RUN_MACHINE_VERSION,
  run_attempt: RUN_ATTEMPT_MACHINE_VERSION,
  execution_node: EXECUTION_NODE_MACHINE_VERSION,
  runtime_request: RUNTIME_REQUEST_MACHINE_VERSION,
  provider_session: PROVIDER_SESSION_MACHINE_VERSION,
  provider_thread: PROVIDER_THREAD_MACHINE_VERSION,
  context_transfer: CONTEXT_TRANSFER_MACHINE_VERSION,
  context_handoff: CONTEXT_HANDOFF_MACHINE_VERSION,
};

/** What each kind of entity keeps. */
export interface EntityContexts {
  thread_supervisor: ThreadSupervisorContext;
  run: RunContext;
  run_attempt: RunAttemptContext;
  execution_node: ExecutionNodeContext;
  runtime_request: RuntimeRequestContext;
  provider_session: ProviderSessionContext;
  provider_thread: ProviderThreadContext;
  context_transfer: ContextTransferContext;
  context_handoff: ContextHandoffContext;
}

export type { EntityEvents, EntityIds, EntityInputs, MachineKind } from './entity-messages.js';

/** Every machine, for the statechart export and the model-based tests. */
export const allMachines: { name: string; machine: AnyStateMachine; version: number; summary: string }[] = [
  {
    name: 'thread-supervisor',
    machine: threadSupervisorMachine,
    version: THREAD_SUPERVISOR_MACHINE_VERSION,
    summary: 'One per AppThread: active run, queue order and hold, dense run ordinals, dispatch by capability.',
  },
  {
    name: 'run',
    machine: runMachine,
    version: RUN_MACHINE_VERSION,
    summary:
      'A counted user turn: root-only completion, interrupt acknowledgement versus terminal, the finalization barrier.',
  },
  {
    name: 'run-attempt',
    machine: runAttemptMachine,
    version: RUN_ATTEMPT_MACHINE_VERSION,
    summary: 'One provider execution of a run; superseded when steering restarts it.',
  },
  {
    name: 'execution-node',
    machine: executionNodeMachine,
    version: EXECUTION_NODE_MACHINE_VERSION,
    summary: 'A piece of work inside a run: root turn, message, tool call, approval, subagent.',
  },
  {
    name: 'provider-session',
    machine: providerSessionMachine,
    version: PROVIDER_SESSION_MACHINE_VERSION,
    summary: 'The durable record of a provider runtime process.',
  },
  {
    name: 'provider-thread',
    machine: providerThreadMachine,
    version: PROVIDER_THREAD_MACHINE_VERSION,
    summary: 'A provider-native conversation handle and its resume cursor.',
  },
  {
    name: 'runtime-request',
    machine: runtimeRequestMachine,
    version: RUNTIME_REQUEST_MACHINE_VERSION,
    summary:
      'A provider callback waiting for the user; answering until the provider takes the answer; cancelled with the reason once the callback is gone (not_resumable) or its run ends.',
  },
  {
    name: 'context-transfer',
    machine: contextTransferMachine,
    version: CONTEXT_TRANSFER_MACHINE_VERSION,
    summary:
      'Context a provider thread is owed (a fork, a provider switch): pending until the next run starts, resolved natively, or materialized into a handoff and consumed by that run; superseded by a rollback of a run it covered.',
  },
  {
    name: 'context-handoff',
    machine: contextHandoffMachine,
    version: CONTEXT_HANDOFF_MACHINE_VERSION,
    summary:
      "The exact text given to a provider thread in place of history it lacks, delivered with one run's first prompt; superseded by a rollback of a run it covered.",
  },
];
