import type { ProviderRuntime } from '../../actors/provider-host.js';
import type { ProviderCapabilities } from '../../domain/capabilities.js';
import type { ProviderEffectKind } from '../../domain/effects.js';
import type { Provider } from '../provider.js';
import { AcpNegotiations } from './acp-negotiations.js';
import { ThreadAdapters } from '../thread-adapters.js';
import { AdapterProvider } from '../adapter-provider.js';
import { AcpThreadAdapter, type AcpAdapterOptions } from './acp-adapter.js';
import { acpBaseCapabilities } from './acp-capabilities.js';
import { createAcpNormalizer } from './acp-normalizer.js';

/** What the adapters share: the agents, the data dir, the timeouts, the MCP servers every session gets. */
export type AcpProviderOptions = Omit<AcpAdapterOptions, 'host' | 'onInitialized'>;

/** ACP's registration: the agents a thread may name, and the one setting the adapter carries (`acpAgent`). */
export const acpProvider = (
  handlers: Provider['handlers'],
  agents: readonly string[],
  capabilitiesFor?: (agent: string) => ProviderCapabilities,
): Provider & { agents: readonly string[] } => ({
  id: 'acp',
  // The base declaration, what any agent gets until Baton has seen its own `initialize`;
  // `capabilitiesFor` gives each agent's, computed from it (acp-capabilities.ts).
  capabilities: acpBaseCapabilities,
  ...(capabilitiesFor ? { capabilitiesFor } : {}),
  handlers,
  agents,
  // Each reaches some built-in agent (session/set_model, session/set_mode: acp-turn-settings.ts);
  // one a thread's agent cannot carry is refused, typed, at its turn.
  appliedSettings: ['acpAgent', 'model', 'runtimeMode', 'interactionMode'],
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
export class AcpProvider extends AdapterProvider<AcpThreadAdapter> {
  protected readonly adapters: ThreadAdapters<AcpThreadAdapter>;
  protected readonly effects = providerEffects;
  /** Each agent's declaration, from the last `initialize` one of its processes answered (kept across restarts). */
  private readonly negotiations: AcpNegotiations;

  constructor(
    runtime: ProviderRuntime,
    private readonly options: AcpProviderOptions,
  ) {
    super();
    const host = runtime.providerHost('acp');
    const negotiations = new AcpNegotiations(options.dataDir);
    this.negotiations = negotiations;
    this.adapters = new ThreadAdapters({
      make: (threadId) =>
        new AcpThreadAdapter(threadId, {
          ...options,
          host,
          onInitialized: (agent, initialize) => negotiations.remember(agent, initialize),
        }),
      activeRunId: (threadId) => host.activeRunId(threadId),
      maxHandoffChars: acpBaseCapabilities.context.maxRecommendedHandoffChars,
    });
  }

  /** ACP as the registry knows it, with the names of the agents it runs. */
  provider(): Provider {
    return acpProvider(this.handlers(), [...this.options.agents.keys()], (agent) => this.capabilitiesFor(agent));
  }

  /**
   * The declaration for threads on `agent`: computed from its last `initialize` answer, in
   * this Baton or an earlier one on the same data dir (acp-negotiations.ts). Before any
   * process of it ever answered, it is the base declaration (agent `any`): nothing the agent must advertise (no session resume, load or fork; text-only
   * prompts), and declines that carry the turn on, as most agents do (codex-acp's own does not). The
   * dispatch flags (steering, interrupt, rollback) do not depend on `initialize`, so what a
   * thread's supervisor took at creation holds either way (test/actors/agent-capabilities.test.ts).
   */
  capabilitiesFor(agent: string): ProviderCapabilities {
    return this.negotiations.declarationOf(agent) ?? acpBaseCapabilities;
  }
}
