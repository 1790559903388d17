import type { EffectHandler } from '../../actors/effect-handler.js';
import type { ProviderHost, ProviderRuntime } from '../../actors/provider-host.js';
import type { ProviderEffectKind } from '../../domain/effects.js';
import { toErrorInfo } from '../../domain/errors.js';
import { ThreadId } from '../../domain/ids.js';
import { seededText } from '../../context/reseed.js';
import type { Provider } from '../provider.js';
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
export class ClaudeProvider {
  private readonly adapters = new Map<string, ClaudeThreadAdapter>();
  private readonly port: ProviderHost;

  constructor(
    runtime: ProviderRuntime,
    private readonly options: ClaudeProviderOptions,
  ) {
    this.port = runtime.providerHost('claude');
  }

  /** Claude as the registry knows it: its id, its adapter's declaration, the effects it carries out and its normalizer. */
  provider(): Provider {
    return claudeProvider(this.handlers());
  }

  /** The adapter of an app thread (a test may name it by a plain string: it is parsed here). */
  adapter(threadId: string): ClaudeThreadAdapter {
    let adapter = this.adapters.get(threadId);
    if (!adapter) {
      adapter = new ClaudeThreadAdapter(ThreadId.parse(threadId), { ...this.options, host: this.port });
      this.adapters.set(threadId, adapter);
    }
    return adapter;
  }

  /** The effect handlers, for the EffectWorker. */
  handlers(): Partial<Record<ProviderEffectKind, EffectHandler>> {
    const handler: EffectHandler = async (effect, worker) => {
      try {
        // A provider_recovery attempt's provider thread lacks the history: Baton's own account goes first, as user text.
        const seed = await worker.reseed(effect, claudeCapabilities.context.maxRecommendedHandoffChars);
        const payload = effect.payload;
        await this.adapter(effect.threadId).carryOut(
          seed ? { ...effect, payload: { ...payload, text: seededText(seed, String(payload.text ?? '')) } } : effect,
        );
        await worker.complete(effect);
      } catch (error) {
        await worker.fail(effect, toErrorInfo(error));
      }
    };
    return Object.fromEntries(providerEffects.map((k) => [k, handler]));
  }

  /** Releases sessions of threads with no active run. Returns how many were stopped. */
  reapIdle(): number {
    let n = 0;
    for (const [threadId, adapter] of this.adapters) {
      if (!this.port.activeRunId(threadId) && adapter.running) {
        void adapter.stop();
        n += 1;
      }
    }
    return n;
  }

  /** Shutdown: stops every agent process and reports nothing more; resolves once they are gone. */
  async stopAll(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await Promise.all([...this.adapters.values()].map((a) => a.detach(signal)));
  }
}
