import type { ProviderRuntime } from '../../actors/provider-host.js';
import type { ProviderEffectKind } from '../../domain/effects.js';
import type { Provider } from '../provider.js';
import { ThreadAdapters } from '../thread-adapters.js';
import { AcpThreadAdapter, type AcpAdapterOptions } from './acp-adapter.js';
import { acpBaseCapabilities } from './acp-capabilities.js';
import { createAcpNormalizer } from './acp-normalizer.js';

/** What the adapters share: the agents, the data dir, the timeouts. */
export type AcpProviderOptions = Omit<AcpAdapterOptions, 'host'>;

/** ACP's registration: the agents a thread may name, and the one setting the adapter carries (`acpAgent`). */
export const acpProvider = (
  handlers: Provider['handlers'],
  agents: readonly string[],
): Provider & { agents: readonly string[] } => ({
  id: 'acp',
  // One declaration per provider in the registry: what every agent gets. Each agent's own is
  // computed from its `initialize` (acp-capabilities.ts).
  capabilities: acpBaseCapabilities,
  handlers,
  agents,
  // The agent itself; model, runtime mode and interaction mode are not carried yet (no set_model / set_mode).
  appliedSettings: ['acpAgent'],
  createNormalizer: createAcpNormalizer,
});

const providerEffects: ProviderEffectKind[] = [
  'provider.session.ensure',
  'provider.turn.start',
  'provider.turn.interrupt',
  'provider.runtime-request.respond',
  'provider.session.stop',
];

/** Any ACP agent as a provider of the runtime: one adapter per app thread, started on demand. */
export class AcpProvider {
  private readonly adapters: ThreadAdapters<AcpThreadAdapter>;

  constructor(
    runtime: ProviderRuntime,
    private readonly options: AcpProviderOptions,
  ) {
    const host = runtime.providerHost('acp');
    this.adapters = new ThreadAdapters({
      make: (threadId) => new AcpThreadAdapter(threadId, { ...options, host }),
      activeRunId: (threadId) => host.activeRunId(threadId),
      maxHandoffChars: acpBaseCapabilities.context.maxRecommendedHandoffChars,
    });
  }

  /** ACP as the registry knows it, with the names of the agents it runs. */
  provider(): Provider {
    return acpProvider(this.handlers(), [...this.options.agents.keys()]);
  }

  /** The adapter of an app thread (a test may name it by a plain string: it is parsed here). */
  adapter(threadId: string): AcpThreadAdapter {
    return this.adapters.get(threadId);
  }

  /** The effect handlers, for the EffectWorker (a replacement provider thread's first prompt is reseeded). */
  handlers(): Provider['handlers'] {
    return this.adapters.handlers(providerEffects);
  }

  /** Releases sessions of threads with no active run. Returns how many were stopped. */
  reapIdle(): number {
    return this.adapters.reapIdle();
  }

  /** Shutdown: stops every agent process (and terminal) and reports nothing more; resolves once they are gone. */
  stopAll(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    return this.adapters.stopAll(signal);
  }
}
