import type { EffectHandler } from '../../actors/effect-handler.js';
import type { ProviderHost, ProviderRuntime } from '../../actors/provider-host.js';
import type { ProviderEffectKind } from '../../domain/effects.js';
import { toErrorInfo } from '../../domain/errors.js';
import { ThreadId } from '../../domain/ids.js';
import type { Provider } from '../provider.js';
import { ClaudeThreadAdapter } from './claude-adapter.js';
import { claudeCapabilities } from './claude-capabilities.js';
import type { ClaudeEndpoint } from './claude-environment.js';
import { createClaudeNormalizer } from './claude-normalizer.js';
import type { AgentProcessFactory } from './claude-process.js';

export interface ClaudeProviderOptions {
  endpoint: ClaudeEndpoint;
  /** Per-thread agent folders live under `<dataDir>/claude/<thread>/`. */
  dataDir: string;
  /** The real key for a configured endpoint; the dummy otherwise. */
  apiKey?: string;
  /** Where each agent process comes from (record and replay channels give theirs); default: the real binary. */
  processFor?: AgentProcessFactory;
}

/** Claude's registration, with these effect handlers. */
export const claudeProvider = (handlers: Provider['handlers']): Provider => ({
  id: 'claude',
  capabilities: claudeCapabilities,
  handlers,
  // Not carried yet: the agent runs the endpoint's model in its `default` permission mode.
  appliedSettings: [],
  createNormalizer: createClaudeNormalizer,
});

const providerEffects: ProviderEffectKind[] = [
  'provider.session.ensure',
  'provider.turn.start',
  'provider.turn.interrupt',
  'provider.runtime-request.respond',
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
      adapter = new ClaudeThreadAdapter(ThreadId.parse(threadId), {
        host: this.port,
        endpoint: this.options.endpoint,
        dataDir: this.options.dataDir,
        ...(this.options.apiKey ? { apiKey: this.options.apiKey } : {}),
        ...(this.options.processFor ? { processFor: this.options.processFor } : {}),
      });
      this.adapters.set(threadId, adapter);
    }
    return adapter;
  }

  /** The effect handlers, for the EffectWorker. */
  handlers(): Partial<Record<ProviderEffectKind, EffectHandler>> {
    const handler: EffectHandler = async (effect, worker) => {
      try {
        await this.adapter(effect.threadId).carryOut(effect);
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
