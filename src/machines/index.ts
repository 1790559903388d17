import type { AnyStateMachine } from 'xstate';
import { EXECUTION_NODE_MACHINE_VERSION, executionNodeMachine } from './execution-node.machine.js';
import { PROVIDER_SESSION_MACHINE_VERSION, providerSessionMachine } from './provider-session.machine.js';
import { PROVIDER_THREAD_MACHINE_VERSION, providerThreadMachine } from './provider-thread.machine.js';
import { RUN_ATTEMPT_MACHINE_VERSION, runAttemptMachine } from './run-attempt.machine.js';
import { RUN_MACHINE_VERSION, runMachine } from './run.machine.js';
import { RUNTIME_REQUEST_MACHINE_VERSION, runtimeRequestMachine } from './runtime-request.machine.js';
import { THREAD_SUPERVISOR_MACHINE_VERSION, threadSupervisorMachine } from './thread-supervisor.machine.js';

/** Every machine, for the statechart export and the model-based tests. */
export const allMachines: { name: string; machine: AnyStateMachine; version: number; summary: string }[] = [
  { name: 'thread-supervisor', machine: threadSupervisorMachine, version: THREAD_SUPERVISOR_MACHINE_VERSION, summary: 'One per AppThread: active run, queue order and hold, dense run ordinals, dispatch by capability.' },
  { name: 'run', machine: runMachine, version: RUN_MACHINE_VERSION, summary: 'A counted user turn: root-only completion, interrupt acknowledgement versus terminal, the finalization barrier.' },
  { name: 'run-attempt', machine: runAttemptMachine, version: RUN_ATTEMPT_MACHINE_VERSION, summary: 'One provider execution of a run; superseded when steering restarts it.' },
  { name: 'execution-node', machine: executionNodeMachine, version: EXECUTION_NODE_MACHINE_VERSION, summary: 'A piece of work inside a run: root turn, message, tool call, approval, subagent.' },
  { name: 'provider-session', machine: providerSessionMachine, version: PROVIDER_SESSION_MACHINE_VERSION, summary: 'The durable record of a provider runtime process.' },
  { name: 'provider-thread', machine: providerThreadMachine, version: PROVIDER_THREAD_MACHINE_VERSION, summary: 'A provider-native conversation handle and its resume cursor.' },
  { name: 'runtime-request', machine: runtimeRequestMachine, version: RUNTIME_REQUEST_MACHINE_VERSION, summary: 'A provider callback waiting for the user; answering until the provider takes the answer; cancelled with the reason once the callback is gone (not_resumable) or its run ends.' },
];
