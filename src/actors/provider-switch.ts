import { BatonError } from '../domain/errors.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { ThreadSettings, ThreadSupervisorEvent } from '../machines/entity-messages.js';
import { requireAcpAgent, requireAvailable, type HandlerEnv, type SupervisorContext } from './command-checks.js';
import { dispatchCapabilities } from './policy.js';
import type { StepContext } from './step-context.js';

/** What a command asks of a switch: the provider (its ACP agent, its model) and whether to start clean. */
export interface SwitchRequest {
  provider?: ProviderKind;
  acpAgent?: string;
  model?: string;
  cleanContext?: boolean;
}

/**
 * The settings update that moves a thread to another provider (or, on ACP, another agent:
 * its sessions are its own) from its next run on, or null when the request names the
 * thread's own. The target must be a provider this Baton runs (with its agent, for `acp`);
 * its model is the one named, else its default (another agent's model name would mean
 * nothing there). The supervisor picks the provider thread when the run starts
 * (`providerMove`): the target's earlier one, told only what it missed, or a new one told
 * everything (also when `cleanContext` asks). The supervisor dispatches by the target's flags.
 */
export function providerSwitch(
  thread: StepContext,
  sup: SupervisorContext,
  request: SwitchRequest,
  env: HandlerEnv,
): Extract<ThreadSupervisorEvent, { type: 'SETTINGS_UPDATE' }> | null {
  const provider = request.provider ?? sup.provider;
  const otherAgent = provider === 'acp' && request.acpAgent !== undefined && request.acpAgent !== sup.acpAgent;
  if (provider === sup.provider && !otherAgent) {
    if (request.cleanContext)
      throw new BatonError(
        'invalid_command',
        `cleanContext starts another provider's (or ACP agent's) thread afresh: name a provider or agent other than the thread's (${sup.provider}${sup.acpAgent ? ` ${sup.acpAgent}` : ''})`,
        { provider: sup.provider, acpAgent: sup.acpAgent ?? null },
      );
    return null;
  }
  requireAvailable(provider, env);
  requireAcpAgent(provider, request.acpAgent, 'create', env);
  const changes: Partial<ThreadSettings> = {
    provider,
    model: request.model ?? null,
    acpAgent: request.acpAgent ?? null,
  };
  return {
    type: 'SETTINGS_UPDATE',
    changes,
    switch: {
      capabilities: dispatchCapabilities(env.capabilities(provider, request.acpAgent)),
      newProviderThreadId: thread.current.newId('providerThread'),
      transferId: thread.current.newId('contextTransfer'),
      clean: request.cleanContext ?? false,
    },
  };
}
