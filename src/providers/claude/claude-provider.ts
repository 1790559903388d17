import type { ProviderRuntime } from '../../actors/provider-host.js';
import type { ProviderEffectKind } from '../../domain/effects.js';
import type { Provider } from '../provider.js';
import { ThreadAdapters } from '../thread-adapters.js';
import { AdapterProvider } from '../adapter-provider.js';
import { ClaudeThreadAdapter, type ClaudeAdapterOptions } from './claude-adapter.js';
import { claudeCapabilities } from './claude-capabilities.js';
import { createClaudeNormalizer } from './claude-normalizer.js';

/** What the adapters share: the endpoint, the data dir, the key, the process source and the timeouts. */
export type ClaudeProviderOptions = Omit<ClaudeAdapterOptions, 'host'>;

/** Claude's registration, with these effect handlers. */
export const claudeProvider = (handlers: Provider['handlers']): Provider => ({
  id: 'claude',
  capabilities: claudeCapabilities,
  handlers,
  // Each turn applies them to the live agent: permission mode and rules, model (claude-turn-settings.ts).
  appliedSettings: ['model', 'runtimeMode', 'interactionMode'],
  createNormalizer: createClaudeNormalizer,
});

const providerEffects: ProviderEffectKind[] = [
  'provider.session.ensure',
  'provider.turn.start',
  'provider.turn.interrupt',
  'provider.runtime-request.respond',
  'provider.thread.rollback',
  'provider.session.stop',
];

/**
 * The real Claude agent (through the Agent SDK) as a provider of the runtime: one adapter
 * per app thread, started on demand, and the outbox effects it carries out.
 */
export class ClaudeProvider extends AdapterProvider<ClaudeThreadAdapter> {
  protected readonly adapters: ThreadAdapters<ClaudeThreadAdapter>;
  protected readonly effects = providerEffects;

  constructor(runtime: ProviderRuntime, options: ClaudeProviderOptions) {
    super();
    const host = runtime.providerHost('claude');
    this.adapters = new ThreadAdapters({
      make: (threadId) => new ClaudeThreadAdapter(threadId, { ...options, host }),
      // A thread whose agent still works in the background (a subagent outliving its run) is not idle.
      activeRunId: (threadId) =>
        host.activeRunId(threadId) ?? (this.adapters.get(threadId).backgroundWork ? 'background work' : null),
      maxHandoffChars: claudeCapabilities.context.maxRecommendedHandoffChars,
    });
  }

  /** Claude as the registry knows it: its id, its adapter's declaration, the effects it carries out and its normalizer. */
  provider(): Provider {
    return claudeProvider(this.handlers());
  }
}
