import { join } from 'node:path';
import type { Logger } from 'pino';
import { checkpointHandlers } from '../actors/checkpoint-effects.js';
import { EffectWorker } from '../actors/effect-worker.js';
import { Runtime } from '../actors/runtime.js';
import { CheckpointStore } from '../checkpoints/checkpoint-store.js';
import { databasePath, type Config } from '../config.js';
import { startWalCheckpointer } from '../persistence/wal-checkpointer.js';
import { Store } from '../persistence/store.js';
import type { CodexProvider } from '../providers/codex/codex-provider.js';
import type { MessagesResponder } from '../providers/model/scripted-messages-server.js';
import type { Responder } from '../providers/model/scripted-model-server.js';
import { ProviderRegistry } from '../providers/registry.js';
import { lockDataDir, type DataDirLock } from '../server/data-dir-lock.js';
import { preparePrivateDataDir } from '../server/data-dir.js';
import { BatonServer } from '../server/server.js';
import { consolePages } from '../server/console-route.js';
import { delegatedTasksStopHandler } from '../actors/delegated-tasks-stop.js';
import { watchDelegatedTasks } from '../actors/delegated-tasks.js';
import { MCP_PATH } from '../mcp/http-endpoint.js';
import { batonMcp } from '../mcp/orchestrator.js';
import { resolveToken } from './access-token.js';
import { openClaudeEndpoint, openModelEndpoint, type ModelEndpoint } from './model-endpoint.js';
import { registerProviders } from './providers.js';
import { startTimerPump } from './timer-pump.js';

export interface BatonApp {
  url: string;
  token: string;
  runtime: Runtime;
  server: BatonServer;
  codex: CodexProvider;
  /** Where the model lives: an endpoint the user configured, or the offline scripted one. */
  model: ModelEndpoint;
  /** Where the Claude agent's model lives: the configured Messages-API endpoint, or the offline scripted one. */
  claudeModel: { kind: 'configured' | 'scripted'; baseUrl: string; model: string };
  stop(): Promise<void>;
}

export interface StartOptions {
  /** What the offline scripted model answers (when no model endpoint is configured). */
  responder?: Responder;
  /** What the offline scripted Messages-API model (Claude's, and claude-agent-acp's) answers. */
  claudeResponder?: MessagesResponder;
}

/**
 * Baton's main job, assembled on a private data dir (0700, its files 0600) that it locks
 * for itself (a second Baton on it is a typed `conflict` naming the first one's pid): the
 * store in the data dir, the runtime, checkpoints, the providers pointed at the configured
 * model endpoint (or the offline scripted model when none is configured), the effect
 * worker and timers, restart recovery, and the Socket.IO server. `stop()` shuts down in
 * order: no new connections, work in flight finished, provider processes stopped,
 * database closed, data dir unlocked.
 */
export async function startBaton(config: Config, logger: Logger, options: StartOptions = {}): Promise<BatonApp> {
  preparePrivateDataDir(config.dataDir, databasePath(config));
  const lock = lockDataDir(config.dataDir);
  try {
    return await assemble(config, logger, options, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function assemble(config: Config, logger: Logger, options: StartOptions, lock: DataDirLock): Promise<BatonApp> {
  const token = resolveToken(config);
  const store = Store.open(databasePath(config));
  const checkpointer = startWalCheckpointer(store.db, {
    onError: (error) => logger.warn({ error }, 'the WAL checkpointer failed: SQLite checkpoints in the commit path'),
  });
  const registry = new ProviderRegistry();
  const runtime = new Runtime({
    store,
    logger,
    providers: registry,
    dataDir: config.dataDir,
    checkpoints: new CheckpointStore({ root: join(config.dataDir, 'checkpoints'), gitTimeoutMs: config.gitTimeoutMs }),
  });
  const endpoint = await openModelEndpoint(config, options.responder);
  const claudeEndpoint = await openClaudeEndpoint(config, options.claudeResponder);
  const providers = registerProviders(registry, runtime, config, endpoint.model, claudeEndpoint);
  const worker = new EffectWorker(
    runtime,
    { ...checkpointHandlers(runtime.checkpoints), 'delegated-tasks.stop': delegatedTasksStopHandler(runtime) },
    `baton-${process.pid}`,
  );
  const timers = startTimerPump(runtime, logger);

  // Recovery ends what the last Baton left running, and cancels those runs' effects, before
  // the worker may claim any of them; the leases of its dead worker are released at once.
  const recovered = await runtime.recoverAfterRestart();
  if (recovered)
    logger.info(
      { requests: recovered },
      'requests whose provider callback died with the last run of Baton are not resumable',
    );
  const released = store.outbox.releaseLeases(runtime.clock.nowMs());
  if (released) logger.info({ effects: released }, 'effects leased by the last run of Baton are claimable again');
  // Delegated tasks' ends are recorded on their parents as they commit (and those missed while stopped, now).
  const stopWatchingTasks = watchDelegatedTasks(runtime);

  // Baton's own token opens the orchestrator MCP server with full scope; each provider session gets a credential of its own.
  const { endpoint: mcp, listening } = batonMcp(runtime, token, logger);
  const server = new BatonServer({
    runtime,
    host: config.host,
    port: config.port,
    token,
    logger,
    allowedOrigins: config.allowedOrigins,
    routes: { [MCP_PATH]: mcp.route },
    pages: consolePages(),
  });
  const address = await server.listen();
  listening(address.host, address.port);
  // Only now may sessions start (the worker starts them): each is told where Baton's MCP server is.
  // The worker claims by itself (after each commit, when a thread's lane frees, on a beat) and
  // never waits for one thread's effects before another's. Timers fire after commits and on
  // the same slow beat.
  const stopWorker = worker.start();
  timers.pump();

  return {
    url: `http://${address.host}:${address.port}`,
    token,
    runtime,
    server,
    codex: providers.codex,
    model: endpoint.model,
    claudeModel: { kind: claudeEndpoint.kind, ...claudeEndpoint.endpoint },
    async stop() {
      // MCP requests in flight (a thread_wait) end first, or the HTTP server would wait for them.
      await mcp.close();
      await server.close();
      const timersStopped = timers.stop();
      stopWorker();
      stopWatchingTasks();
      await timersStopped;
      // Provider processes go first (nothing more is reported), then the steps already in
      // the mailboxes finish and commit, then the database closes.
      await providers.stop();
      await worker.idle();
      await runtime.settle();
      runtime.queue.flush();
      await endpoint.stop();
      await claudeEndpoint.stop();
      await checkpointer.stop();
      store.close();
      lock.release();
    },
  };
}
