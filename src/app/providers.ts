import type { Runtime } from '../actors/runtime.js';
import type { Config } from '../config.js';
import { acpAgents } from '../providers/acp/acp-agents.js';
import { AcpProvider } from '../providers/acp/acp-provider.js';
import { ClaudeProvider } from '../providers/claude/claude-provider.js';
import { CodexProvider } from '../providers/codex/codex-provider.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ModelEndpoint, OpenClaudeEndpoint } from './model-endpoint.js';

/** Idle provider sessions are released this often (the next effect resumes them). */
const reapEveryMs = 10 * 60_000;

export interface AppProviders {
  codex: CodexProvider;
  claude: ClaudeProvider;
  acp: AcpProvider;
  /** Stops reaping and ends every provider process (nothing more is reported); resolves once the agents are gone. */
  stop(): Promise<void>;
}

/**
 * The concrete providers this Baton runs, registered with the runtime's registry: Codex,
 * pointed at the model endpoint, Claude, pointed at its Messages-API endpoint, and ACP,
 * whose built-in agents are pointed at those two; each is given the user's MCP servers.
 * The runtime knows them only through the registry.
 */
export function registerProviders(
  registry: ProviderRegistry,
  runtime: Runtime,
  config: Config,
  model: ModelEndpoint,
  claudeModel: OpenClaudeEndpoint,
): AppProviders {
  const codex = new CodexProvider(runtime, {
    endpoint: { baseUrl: model.baseUrl, model: model.name, mcpServers: config.mcpServers },
    dataDir: config.dataDir,
    turnIdleTimeoutMs: config.turnIdleTimeoutMs,
    interruptTimeoutMs: config.interruptTimeoutMs,
  });
  registry.register(codex.provider());
  // Per-thread agent folders under <data>/claude/<thread>/.
  const claude = new ClaudeProvider(runtime, {
    endpoint: claudeModel.endpoint,
    mcpServers: config.mcpServers,
    dataDir: config.dataDir,
    turnIdleTimeoutMs: config.turnIdleTimeoutMs,
    interruptTimeoutMs: config.interruptTimeoutMs,
  });
  registry.register(claude.provider());
  // Any ACP agent: the two built-ins (against the same two endpoints) and BATON_ACP_AGENTS; folders under <data>/acp/.
  const acp = new AcpProvider(runtime, {
    agents: acpAgents(config, {
      claude: claudeModel.endpoint,
      codex: { baseUrl: model.baseUrl, model: model.name },
    }),
    mcpServers: config.mcpServers,
    dataDir: config.dataDir,
    interruptTimeoutMs: config.interruptTimeoutMs,
  });
  registry.register(acp.provider());
  const reaper = setInterval(() => {
    codex.reapIdle();
    claude.reapIdle();
    acp.reapIdle();
  }, reapEveryMs);
  return {
    codex,
    claude,
    acp,
    async stop() {
      clearInterval(reaper);
      await Promise.all([codex.stopAll('SIGTERM'), claude.stopAll('SIGTERM'), acp.stopAll('SIGTERM')]);
    },
  };
}
