import type { ProviderCapabilities } from '../domain/capabilities.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { DispatchCapabilities } from '../machines/thread-supervisor.machine.js';

/**
 * The one place orchestration reads provider capabilities. Machines receive the flags
 * they decide by; no code anywhere branches on a provider's name.
 */
export function dispatchCapabilities(caps: ProviderCapabilities): DispatchCapabilities {
  return {
    supportsActiveSteering: caps.turns.supportsActiveSteering,
    supportsSteeringByInterruptRestart: caps.turns.supportsSteeringByInterruptRestart,
    supportsInterrupt: caps.turns.supportsInterrupt,
    canRollbackThread: caps.threads.canRollbackThread,
  };
}

/**
 * Where the runtime looks up a thread's declared capabilities: its provider's, and, for a
 * provider that runs many agents (ACP), the agent the thread names (`acpAgent`; null or
 * absent for every other thread), whose own declaration may differ from its provider's base.
 */
export type CapabilitySource = (provider: ProviderKind, agent?: string | null) => ProviderCapabilities;
