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
 * The settings update that moves a thread to another provider from its next run on, or
 * null when the request names the thread's own provider. The target must be a provider
 * this Baton runs (with its agent, for `acp`); its model is the one named, else its
 * default (another provider's model name would mean nothing there). The supervisor picks
 * the provider thread when the run starts (`providerMove`): the target's earlier one, told
 * only what it missed, or a new one told everything (also when `cleanContext` asks).
 */
export function providerSwitch(
  thread: StepContext,
  sup: SupervisorContext,
  request: SwitchRequest,
  env: HandlerEnv,
): Extract<ThreadSupervisorEvent, { type: 'SETTINGS_UPDATE' }> | null {
  const provider = request.provider;
  if (provider === undefined || provider === sup.provider) {
    if (request.cleanContext)
      throw new BatonError(
        'invalid_command',
        `cleanContext starts another provider's thread afresh: name a provider other than the thread's (${sup.provider})`,
        { provider: sup.provider },
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
