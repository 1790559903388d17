import type { Runtime } from '../actors/runtime.js';
import type { Config } from '../config.js';
import { CodexProvider } from '../providers/codex/codex-provider.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ModelEndpoint } from './model-endpoint.js';

/** Idle provider sessions are released this often (the next effect resumes them). */
const reapEveryMs = 10 * 60_000;

export interface AppProviders {
  codex: CodexProvider;
  /** Stops reaping and ends every provider process (nothing more is reported). */
  stop(): void;
}

/**
 * The concrete providers this Baton runs, registered with the runtime's registry: today
 * Codex, pointed at the model endpoint. The runtime knows them only through the registry.
 */
export function registerProviders(
  registry: ProviderRegistry,
  runtime: Runtime,
  config: Config,
  model: ModelEndpoint,
): AppProviders {
  const codex = new CodexProvider(runtime, {
    endpoint: { baseUrl: model.baseUrl, model: model.name },
    dataDir: config.dataDir,
    turnIdleTimeoutMs: config.turnIdleTimeoutMs,
    interruptTimeoutMs: config.interruptTimeoutMs,
  });
  registry.register(codex.provider());
  const reaper = setInterval(() => codex.reapIdle(), reapEveryMs);
  return {
    codex,
    stop() {
      clearInterval(reaper);
      codex.stopAll('SIGTERM');
    },
  };
}
