import type { Runtime } from '../actors/runtime.js';
import type { Config } from '../config.js';
import { ClaudeProvider } from '../providers/claude/claude-provider.js';
import { CodexProvider } from '../providers/codex/codex-provider.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ModelEndpoint, OpenClaudeEndpoint } from './model-endpoint.js';

/** Idle provider sessions are released this often (the next effect resumes them). */
const reapEveryMs = 10 * 60_000;

export interface AppProviders {
  codex: CodexProvider;
  claude: ClaudeProvider;
  /** Stops reaping and ends every provider process (nothing more is reported); resolves once the agents are gone. */
  stop(): Promise<void>;
}

/**
 * The concrete providers this Baton runs, registered with the runtime's registry: Codex,
 * pointed at the model endpoint, and Claude, pointed at its Messages-API endpoint. The
 * runtime knows them only through the registry.
 */
export function registerProviders(
  registry: ProviderRegistry,
  runtime: Runtime,
  config: Config,
  model: ModelEndpoint,
  claudeModel: OpenClaudeEndpoint,
): AppProviders {
  const codex = new CodexProvider(runtime, {
    endpoint: { baseUrl: model.baseUrl, model: model.name },
    dataDir: config.dataDir,
    turnIdleTimeoutMs: config.turnIdleTimeoutMs,
    interruptTimeoutMs: config.interruptTimeoutMs,
  });
  registry.register(codex.provider());
  // Per-thread agent folders under <data>/claude/<thread>/.
  const claude = new ClaudeProvider(runtime, {
    endpoint: claudeModel.endpoint,
    dataDir: config.dataDir,
    turnIdleTimeoutMs: config.turnIdleTimeoutMs,
    interruptTimeoutMs: config.interruptTimeoutMs,
  });
  registry.register(claude.provider());
  const reaper = setInterval(() => {
    codex.reapIdle();
    claude.reapIdle();
  }, reapEveryMs);
  return {
    codex,
    claude,
    async stop() {
      clearInterval(reaper);
      codex.stopAll('SIGTERM');
      await claude.stopAll('SIGTERM');
    },
  };
}
