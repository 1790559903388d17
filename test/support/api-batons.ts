import { realpathSync } from 'node:fs';
import { pino } from 'pino';
import { afterEach } from 'vitest';
import { startBaton } from '../../src/app/baton-app.js';
import { BatonClient } from '../../src/client/baton-client.js';
import { loadConfig, type Config } from '../../src/config.js';
import { until } from './poll.js';
import { processesIn } from './processes.js';
import { serveProcess, type ServeProcess } from './serve-process.js';
import { TempFolders } from './temp.js';
import { ok, ThreadClient } from './thread-client.js';

export interface ApiBatonsOptions {
  token: string;
  /** Names the temp folders: `<prefix>-` for data, `<prefix>-ws-` for workspaces. */
  prefix: string;
  /** What the provider's agent runs as: none may be left in a workspace after a test. */
  agentComms: readonly string[];
}

export interface ApiBatons {
  folders: TempFolders;
  /** A fresh workspace, checked for leftover agents after the test. */
  workspace(): string;
  /** Checks another folder (a fork's own workspace) for leftover agents after the test, as `workspace()`'s are. */
  watchWorkspace(dir: string): void;
  /** A Baton in this process; `config` points its agents at a scripted model. */
  baton(config: Partial<Record<keyof Config, unknown>>): Promise<{ url: string }>;
  /** `baton serve` as a child process (SIGKILLed after the test); resolves once it listens. */
  serve(dataDir: string, env: Record<string, string>): Promise<ServeProcess>;
  /** A client on an existing thread. */
  open(url: string, threadId: string): Promise<ThreadClient>;
  /** Creates a thread with `fields` and opens a client on it. */
  create(url: string, fields: { cwd: string } & Record<string, unknown>): Promise<ThreadClient>;
  /** Runs after the test (newest first), before the leftover-agent check. */
  onCleanup(cleanup: () => Promise<void> | void): void;
}

/** Real Batons for a public-API test file, whose agents must be gone with them after each test. */
export function useApiBatons({ token, prefix, agentComms }: ApiBatonsOptions): ApiBatons {
  const folders = new TempFolders();
  const cleanups: (() => Promise<void> | void)[] = [];
  const workspaces: string[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    // Every agent a test started is gone with its Baton. A grandchild (the claude binary under
    // claude-agent-acp) dies by its parent-death signal a moment after its parent: waited for, not assumed.
    for (const ws of workspaces.splice(0))
      await until(() => processesIn(agentComms, ws).length === 0, `the agents in ${ws} to be gone`, 5_000);
    folders.removeAll();
  });
  const onCleanup = (cleanup: () => Promise<void> | void): void => void cleanups.push(cleanup);
  const open = async (url: string, threadId: string): Promise<ThreadClient> => {
    const t = await ThreadClient.open(url, token, threadId);
    onCleanup(() => t.client.close());
    return t;
  };
  return {
    folders,
    onCleanup,
    open,
    workspace() {
      const ws = realpathSync(folders.make(`${prefix}-ws-`));
      workspaces.push(ws);
      return ws;
    },
    watchWorkspace(dir) {
      workspaces.push(dir);
    },
    async baton(config) {
      const app = await startBaton(
        loadConfig({}, { dataDir: folders.make(`${prefix}-`), port: 0, token, ...config }),
        pino({ level: 'silent' }),
      );
      onCleanup(() => app.stop());
      return app;
    },
    async serve(dataDir, env) {
      const serve = await serveProcess(dataDir, { BATON_TOKEN: token, ...env }, undefined, 'configured');
      onCleanup(() => void serve.child.kill('SIGKILL'));
      return serve;
    },
    async create(url, fields) {
      const client = await BatonClient.connect(url, token);
      const { threadId } = ok<{ threadId: string }>(await client.command('thread.create', fields));
      client.close();
      return open(url, threadId);
    },
  };
}
