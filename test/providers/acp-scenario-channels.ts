import { readFileSync } from 'node:fs';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import type { ProviderCapabilities } from '../../src/domain/capabilities.js';
import { acpAgents, type AcpEndpoints } from '../../src/providers/acp/acp-agents.js';
import { acpAgentFeatures, acpCapabilities } from '../../src/providers/acp/acp-capabilities.js';
import { AcpProvider, type AcpProviderOptions } from '../../src/providers/acp/acp-provider.js';
import type { ScriptedMessagesServer } from '../../src/providers/model/scripted-messages-server.js';
import type { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import {
  dataDirOf,
  killAgent,
  latestSession,
  runProviders,
  type GoneChannel,
  type GoneSession,
} from '../support/scenario-kit/agent-providers.js';
import type { RunPlace, ScenarioProvider } from '../support/scenario-kit/channels.js';
import type { ProviderScenario } from '../support/scenario-kit/scenario.js';
import { liveAcpModels, type BuiltInAgent } from '../support/live-acp.js';
import { claudeModel } from './claude-model.js';
import { claudeScenarioProvider } from './claude-scenarios.js';
import { codexModel } from './codex-scenarios.js';

/** The ACP provider's channels into the scenario kit, one per built-in agent. */

/** The agent's `initialize` answer, recorded from the pinned agent (test/fixtures/acp/). */
export const acpInitializeFixture = (agent: BuiltInAgent): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/acp/${agent}.initialize.json`, import.meta.url), 'utf8'));

/** What Baton declares for threads on this agent: computed from its own `initialize` answer. */
export const acpAgentCapabilities = (agent: BuiltInAgent): ProviderCapabilities =>
  acpCapabilities(acpAgentFeatures(acpInitializeFixture(agent)));

/**
 * An ACP agent as the scenario kit sees it: provider `acp`, with that agent's declaration;
 * claude-agent-acp plays the model steps Claude's scripted model has a form for.
 */
export const acpScenarioProvider = (agent: BuiltInAgent): ScenarioProvider => ({
  id: 'acp',
  capabilities: acpAgentCapabilities(agent),
  ...(agent === 'claude-agent-acp' ? { cannotPlay: claudeScenarioProvider.cannotPlay } : {}),
});

/** A port nothing listens on: the endpoint of the model the run's agent does not use. */
const NOWHERE = 'http://127.0.0.1:9';

/** One ACP run of a scenario, however the agent process is provided. */
export interface AcpRun extends RunPlace {
  agent: BuiltInAgent;
  scenario: Pick<ProviderScenario, 'adjustCapabilities' | 'mcpServers'>;
  live: boolean;
  /** The model endpoint of the agent's kind (Messages API for claude-agent-acp, Responses API for codex-acp). */
  modelBaseUrl: string;
  /**
   * More provider options: a recording or a replay gives its process hook here (whatever
   * `AcpProviderOptions` names it); live runs spawn the real agent.
   */
  provider?: Partial<Omit<AcpProviderOptions, 'agents' | 'dataDir'>>;
  modelAsked(n: number): Promise<void>;
  /** How the scenario's kill is carried out: a real signal, or a replayed exit. */
  kill(provider: AcpProvider, threadId: string): void;
  describe?(): string;
}

/** An ACP run's session, and a way to wait until its agent processes are gone. */
export interface AcpSession extends GoneSession {
  /** Every AcpProvider the run made (a restart makes another). */
  providers: AcpProvider[];
}

/** Wires one built-in ACP agent into a scenario run's Baton: every thread the scenario creates runs it. */
export function acpSession(run: AcpRun): AcpSession {
  const made = runProviders<AcpProvider>('ACP');
  const declared = acpAgentCapabilities(run.agent);
  const capabilities = run.scenario.adjustCapabilities?.(declared) ?? declared;
  const endpoints: AcpEndpoints = {
    claude: {
      baseUrl: run.agent === 'claude-agent-acp' ? run.modelBaseUrl : NOWHERE,
      model: liveAcpModels.claude,
    },
    codex: { baseUrl: run.agent === 'codex-acp' ? run.modelBaseUrl : NOWHERE, model: liveAcpModels.codex },
  };
  return {
    providers: made.providers,
    live: run.live,
    capabilities,
    threadDefaults: { provider: 'acp', acpAgent: run.agent },
    harness: {
      // The runtime decides by the agent's own declaration, not the registry's base one.
      capabilities: () => capabilities,
      checkpoints: new CheckpointStore({ root: run.checkpointsRoot }),
      defaultProvider: 'acp',
      providers: (runtime) => {
        const provider = new AcpProvider(runtime, {
          ...run.provider,
          // The scenario's MCP servers, handed to every session the agent opens.
          ...(run.scenario.mcpServers ? { mcpServers: run.scenario.mcpServers } : {}),
          agents: acpAgents({}, endpoints),
          dataDir: dataDirOf(run.dir),
        });
        made.providers.push(provider);
        return [provider.provider()];
      },
    },
    modelAsked: (n) => run.modelAsked(n),
    kill: (threadId) => run.kill(made.latest(threadId), threadId),
    stop: made.stop,
    ...(run.describe ? { describe: run.describe } : {}),
    gone: made.gone,
  };
}

const killProcess = killAgent('ACP');

/** The scripted model of each built-in agent's kind. */
export type AcpModel =
  { agent: 'claude-agent-acp'; server: ScriptedMessagesServer } | { agent: 'codex-acp'; server: ScriptedModelServer };

/** A live run: the scenario's model steps in the agent's model's terms, queued on its scripted model. */
export function acpLiveRun(model: AcpModel, scenario: ProviderScenario, place: RunPlace): AcpRun {
  if (model.agent === 'claude-agent-acp') model.server.enqueue(...claudeModel(scenario.model, { cwd: place.cwd }));
  else model.server.enqueue(...codexModel(scenario.model));
  const server = model.server;
  return {
    ...place,
    agent: model.agent,
    scenario,
    live: true,
    modelBaseUrl: server.baseUrl,
    modelAsked: (n) => server.waitForRequests(n),
    kill: killProcess,
    describe: () => `the model was asked ${server.requests.length} times`,
  };
}

/** The real built-in agent against its scripted model. */
export function acpLiveChannel(model: AcpModel): GoneChannel {
  return latestSession('live', (scenario, place) => acpSession(acpLiveRun(model, scenario, place)));
}
