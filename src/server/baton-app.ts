import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { checkpointHandlers } from '../actors/checkpoint-effects.js';
import { EffectWorker } from '../actors/effect-worker.js';
import { Runtime } from '../actors/runtime.js';
import { CheckpointStore } from '../checkpoints/checkpoint-store.js';
import { databasePath, type Config } from '../config.js';
import { writePrivateFileAtomic } from '../persistence/private-file.js';
import { Store } from '../persistence/store.js';
import { CodexProvider } from '../providers/codex/codex-provider.js';
import { ProviderRegistry } from '../providers/registry.js';
import { offlineResponder, ScriptedModelServer, type Responder } from '../providers/model/scripted-model-server.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { preparePrivateDataDir } from './data-dir.js';
import { BatonServer } from './server.js';

export interface BatonApp {
  url: string;
  token: string;
  runtime: Runtime;
  server: BatonServer;
  codex: CodexProvider;
  /** Where the model lives: an endpoint the user configured, or the offline scripted one. */
  model: { kind: 'configured' | 'scripted'; baseUrl: string; name: string };
  stop(): Promise<void>;
}

/** The token from the environment, else the one stored in the data dir, else a new one (stored). */
function resolveToken(config: Config): string {
  if (config.token) return config.token;
  const file = join(config.dataDir, 'token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  writePrivateFileAtomic(file, `${token}\n`);
  return token;
}

/**
 * Baton's main job, assembled on a private data dir (0700, its files 0600) that it locks
 * for itself (a second Baton on it is a typed `conflict` naming the first one's pid): the
 * store in the data dir, the runtime, checkpoints, the Codex provider pointed at the
 * configured model endpoint (or the offline scripted model when none is configured), the
 * effect worker and timers, restart recovery, and the Socket.IO server. `stop()` shuts
 * down in order: no new connections, work in flight finished, provider processes stopped,
 * database closed, data dir unlocked.
 */
export async function startBaton(config: Config, logger: Logger, options: { responder?: Responder } = {}): Promise<BatonApp> {
  preparePrivateDataDir(config.dataDir, databasePath(config));
  const lock = lockDataDir(config.dataDir);
  try {
    return await assemble(config, logger, options, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function assemble(config: Config, logger: Logger, options: { responder?: Responder }, lock: DataDirLock): Promise<BatonApp> {
  const token = resolveToken(config);
  const store = Store.open(databasePath(config));
  const providers = new ProviderRegistry();
  const runtime = new Runtime({ store, logger, providers, dataDir: config.dataDir, checkpoints: new CheckpointStore({ root: join(config.dataDir, 'checkpoints'), gitTimeoutMs: config.gitTimeoutMs }) });

  let scripted: ScriptedModelServer | null = null;
  let model: BatonApp['model'];
  if (config.model !== 'scripted' && config.codexBaseUrl) {
    model = { kind: 'configured', baseUrl: config.codexBaseUrl, name: config.codexModel ?? 'gpt-5.1-codex' };
  } else {
    scripted = await new ScriptedModelServer(options.responder ?? offlineResponder(config.scriptedDelayMs)).start();
    model = { kind: 'scripted', baseUrl: scripted.baseUrl, name: config.codexModel ?? 'baton-scripted' };
  }
  const codex = new CodexProvider(runtime, {
    endpoint: { baseUrl: model.baseUrl, model: model.name },
    dataDir: config.dataDir,
    turnIdleTimeoutMs: config.turnIdleTimeoutMs,
    interruptTimeoutMs: config.interruptTimeoutMs,
  });
  providers.register(codex.provider());
  const worker = new EffectWorker(runtime, checkpointHandlers(runtime.checkpoints), `baton-${process.pid}`);

  let running: Promise<void> | null = null;
  let again = false;
  const pump = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await runtime.fireDueTimers();
        } catch (error) {
          logger.error({ err: error }, 'firing due timers failed');
        }
      } while (again);
    })().finally(() => (running = null));
  };
  const stopTimers = runtime.onEvents(pump);
  const beat = setInterval(pump, 1_000);
  const reaper = setInterval(() => codex.reapIdle(), 10 * 60_000);

  // Recovery ends what the last Baton left running, and cancels those runs' effects, before
  // the worker may claim any of them; the leases of its dead worker are released at once.
  const recovered = await runtime.recoverAfterRestart();
  if (recovered) logger.info({ requests: recovered }, 'requests whose provider callback died with the last run of Baton are not resumable');
  const released = store.outbox.releaseLeases(runtime.clock.nowMs());
  if (released) logger.info({ effects: released }, 'effects leased by the last run of Baton are claimable again');
  // The worker claims by itself (after each commit, when a thread's lane frees, on a beat) and
  // never waits for one thread's effects before another's. Timers fire after commits and on
  // the same slow beat.
  const stopWorker = worker.start();
  pump();
  const stopPumping = (): void => {
    stopTimers();
    stopWorker();
  };

  const server = new BatonServer({ runtime, host: config.host, port: config.port, token, logger, allowedOrigins: config.allowedOrigins });
  const address = await server.listen();
  const url = `http://${address.host}:${address.port}`;

  return {
    url,
    token,
    runtime,
    server,
    codex,
    model,
    async stop() {
      await server.close();
      clearInterval(beat);
      clearInterval(reaper);
      stopPumping();
      await running;
      // Provider processes go first (nothing more is reported), then the steps already in
      // the mailboxes finish and commit, then the database closes.
      codex.stopAll('SIGTERM');
      await worker.idle();
      await runtime.settle();
      runtime.queue.flush();
      await scripted?.stop();
      store.close();
      lock.release();
    },
  };
}
