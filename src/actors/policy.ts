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

/** Where a fork's first run starts from, as the fork policy sees it. */
export interface ForkPoint {
  /** The provider that ran the source run. */
  sourceProvider: ProviderKind;
  /** Whether the source run's provider thread is bound to a native thread the provider could fork. */
  sourceIsNative: boolean;
}

/**
 * How a fork's first run is resolved: a native fork when the fork thread's provider can
 * fork from a turn and the source run was its own (a provider forks only its own native
 * threads), else portably from Baton's own record of the source (lower fidelity: what the
 * agent saw beyond Baton's items, tool internals and reasoning, is not carried).
 */
export function forkStrategy(
  caps: ProviderCapabilities,
  target: ProviderKind,
  source: ForkPoint,
): 'native_fork' | 'portable_context' {
  const native = caps.threads.canForkThread && caps.threads.canForkFromTurn;
  return native && source.sourceProvider === target && source.sourceIsNative ? 'native_fork' : 'portable_context';
}
