import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { checkpointHandlers } from '../../src/actors/checkpoint-effects.js';
import { delegatedTasksStopHandler } from '../../src/actors/delegated-tasks-stop.js';
import { watchDelegatedTasks } from '../../src/actors/delegated-tasks.js';
import { EffectWorker } from '../../src/actors/effect-worker.js';
import type { OrchestratorMcpAccess, OrchestratorMcpSession } from '../../src/actors/provider-host.js';
import { Runtime } from '../../src/actors/runtime.js';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { ManualClock, SequentialIds } from '../../src/domain/sources.js';
import { MCP_PATH } from '../../src/mcp/http-endpoint.js';
import { batonMcp } from '../../src/mcp/orchestrator.js';
import { Store } from '../../src/persistence/store.js';
import type { AgentProcessFactory } from '../../src/providers/claude/claude-process.js';
import { ClaudeProvider } from '../../src/providers/claude/claude-provider.js';
import { CodexProvider, type CodexProviderOptions } from '../../src/providers/codex/codex-provider.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { dataDirOf } from '../support/scenario-kit/agent-providers.js';
import type { RunPlace } from '../support/scenario-kit/channels.js';

/**
 * A Baton for the delegation scenarios, assembled as the app assembles itself (effect worker
 * with the checkpoint and delegated-tasks.stop handlers, the delegated-task watcher, the
 * orchestrator MCP server at `/mcp` on a loopback port, Codex and Claude registered) but with
 * deterministic ids and a manual clock, so that a replay's Baton gives out the ids and times
 * its recording's did, and with the agents' processes given by the channel (recorded or
 * replayed). The credentials Baton mints for provider sessions are noted as they are minted:
 * a replay makes its agent's MCP requests with the one Baton gave that session.
 */

/** The credential each thread's newest provider session was given. */
export class MintedCredentials {
  private readonly latest = new Map<string, OrchestratorMcpSession>();

  /** Wraps Baton's own access, noting each credential it mints. */
  watch(access: OrchestratorMcpAccess): OrchestratorMcpAccess {
    return {
      open: (threadId) => {
        const minted = access.open(threadId);
        if (minted) this.latest.set(threadId, minted);
        return minted;
      },
    };
  }

  /** The credential of the thread's session now starting (minted just before its process is asked for). */
  of(threadId: string): OrchestratorMcpSession {
    const minted = this.latest.get(threadId);
    if (!minted) throw new Error(`Baton minted no MCP credential for ${threadId}`);
    return minted;
  }
}

/** How the channel provides the agents: their models, their processes, and the MCP URL they are told. */
export interface AgentWiring {
  codexModelUrl: string;
  claudeModelUrl: string;
  codexChannelFor: NonNullable<CodexProviderOptions['channelFor']>;
  claudeProcessFor: AgentProcessFactory;
  /** The URL the agents are told, given the endpoint's (a recording puts its proxy before it). */
  agentUrl(endpointUrl: string): Promise<string>;
}

export interface DelegationBaton {
  runtime: Runtime;
  /** Where Baton listens (`/mcp` is under it), and its own token: the scenario's MCP client uses them. */
  url: string;
  token: string;
  codex: CodexProvider;
  claude: ClaudeProvider;
  credentials: MintedCredentials;
  /** Stops as the app does: MCP requests first, then the agents, the worker's work, the store. */
  close(): Promise<void>;
}

export const BATON_TOKEN = 'test-token-0123456789';

export async function startDelegationBaton(
  place: RunPlace,
  agents: AgentWiring,
  credentials: MintedCredentials,
): Promise<DelegationBaton> {
  const logger = pino({ level: 'silent' });
  const clock = new ManualClock();
  const store = Store.open(join(place.dir, 'baton.sqlite'), { clock });
  const registry = new ProviderRegistry();
  const runtime = new Runtime({
    store,
    logger,
    clock,
    ids: new SequentialIds('a'),
    providers: registry,
    checkpoints: new CheckpointStore({ root: place.checkpointsRoot }),
  });
  const dataDir = dataDirOf(place.dir);
  const codex = new CodexProvider(runtime, {
    // A hanging model is the scenario's (a stop cascade stops it): Codex does not give up on it first.
    endpoint: { baseUrl: agents.codexModelUrl, model: 'gpt-5.1-codex', streamIdleTimeoutMs: 120_000 },
    dataDir,
    channelFor: agents.codexChannelFor,
  });
  registry.register(codex.provider());
  const claude = new ClaudeProvider(runtime, {
    endpoint: { baseUrl: agents.claudeModelUrl, model: 'claude-sonnet-4-5' },
    dataDir,
    processFor: agents.claudeProcessFor,
  });
  registry.register(claude.provider());
  const worker = new EffectWorker(runtime, {
    ...checkpointHandlers(runtime.checkpoints),
    'delegated-tasks.stop': delegatedTasksStopHandler(runtime),
  });
  const stopWatching = watchDelegatedTasks(runtime);

  const { endpoint, listening } = batonMcp(runtime, BATON_TOKEN, logger);
  if (runtime.orchestratorMcp) runtime.orchestratorMcp = credentials.watch(runtime.orchestratorMcp);
  const http = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://baton').pathname === MCP_PATH) endpoint.route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const agentUrl = new URL(await agents.agentUrl(`${url}${MCP_PATH}`));
  listening(agentUrl.hostname, Number(agentUrl.port));
  const stopWorker = worker.start();

  return {
    runtime,
    url,
    token: BATON_TOKEN,
    codex,
    claude,
    credentials,
    async close() {
      await endpoint.close();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
      stopWorker();
      stopWatching();
      await Promise.all([codex.stopAll('SIGKILL'), claude.stopAll('SIGKILL')]);
      await worker.idle();
      await runtime.settle();
      runtime.queue.flush();
      store.close();
    },
  };
}
