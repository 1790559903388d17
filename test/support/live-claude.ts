import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { ManualClock } from '../../src/domain/sources.js';
import type { Store } from '../../src/persistence/store.js';
import { ClaudeProvider, type ClaudeProviderOptions } from '../../src/providers/claude/claude-provider.js';
import {
  ScriptedMessagesServer,
  type MessagesResponder,
  type ScriptedMessagesServerOptions,
} from '../../src/providers/model/scripted-messages-server.js';
import { createHarness, type Harness } from './runtime.js';
import { TempFolders } from './temp.js';

/** The model every live Claude harness names in its endpoint. */
export const liveClaudeModel = 'claude-sonnet-4-5';

/** The Claude agents this process started and still has (children running the SDK's binary). */
export const claudeAgents = (): string[] =>
  spawnSync('pgrep', ['-P', String(process.pid), '-f', 'claude-agent-sdk-linux-x64/claude'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((line) => line.trim());

export interface LiveClaudeSetup {
  /** What the scripted model answers (default: its queue, which the test fills). */
  responder?: MessagesResponder;
  /** The scripted model's own options (requests answered on the side, say). */
  model?: ScriptedMessagesServerOptions;
  /** More provider options: the timeouts, a `processFor`. */
  provider?: Partial<Omit<ClaudeProviderOptions, 'endpoint' | 'dataDir'>>;
  /** A checkpoint store in the test's folder (no checkpoints without it). */
  checkpoints?: boolean;
}

/** One test's Baton with the real Claude agent. */
export interface LiveClaudeRun {
  /** A runtime on a real SQLite file whose Claude effects run the real agent. */
  h: Harness;
  /** A fresh workspace (its real path: the agent reports real paths). */
  cwd: string;
  /** The provider's data dir: the agent's folders are under `<dataDir>/claude/<thread>/`. */
  dataDir: string;
  /** The scripted Messages-API model the agent talks to. */
  model: ScriptedMessagesServer;
}

export interface LiveClaudeOptions {
  /** A check of the test's model after its agents are gone, before it stops. */
  verify?: (model: ScriptedMessagesServer) => void;
}

export interface LiveClaude {
  /** The Claude providers of the runtimes opened so far in this test (restarts included), in order. */
  providers: ClaudeProvider[];
  /** Starts a scripted model and opens a Baton on it with a ClaudeProvider. */
  setup(options?: LiveClaudeSetup): Promise<LiveClaudeRun>;
  /** Baton goes down (its agents with it, checked) and comes back on the same store. */
  restart(h: Harness): Promise<Harness>;
  /** A fresh workspace folder (real path), removed after the test. */
  workspace(): string;
}

/**
 * The live Claude harness for a vitest file. After each test every agent is SIGKILLed and
 * none may be left, then the stores close, the models stop and the folders go.
 */
export function useLiveClaude(options: LiveClaudeOptions = {}): LiveClaude {
  const temps = new TempFolders();
  const stores: Store[] = [];
  const providers: ClaudeProvider[] = [];
  const models: ScriptedMessagesServer[] = [];

  afterEach(async () => {
    try {
      await Promise.all(providers.splice(0).map((p) => p.stopAll('SIGKILL')));
      expect(claudeAgents()).toEqual([]);
      for (const model of models) options.verify?.(model);
    } finally {
      stores.splice(0).forEach((s) => s.close());
      await Promise.all(models.splice(0).map((m) => m.stop()));
      temps.removeAll();
    }
  });

  const workspace = (): string => realpathSync(temps.make('baton-claude-ws-'));

  const setup = async (setupOptions: LiveClaudeSetup = {}): Promise<LiveClaudeRun> => {
    const model = await new ScriptedMessagesServer(setupOptions.responder, setupOptions.model).start();
    models.push(model);
    const dir = temps.make('baton-claude-live-');
    const dataDir = join(dir, 'data');
    const h = createHarness(
      {
        defaultProvider: 'claude',
        ...(setupOptions.checkpoints ? { checkpoints: new CheckpointStore({ root: join(dir, 'checkpoints') }) } : {}),
        providers: (runtime) => {
          const provider = new ClaudeProvider(runtime, {
            endpoint: { baseUrl: model.baseUrl, model: liveClaudeModel },
            dataDir,
            ...setupOptions.provider,
          });
          providers.push(provider);
          return [provider.provider()];
        },
      },
      join(dir, 'baton.sqlite'),
      'c',
      new ManualClock(),
      (s) => stores.push(s),
    );
    return { h, cwd: workspace(), dataDir, model };
  };

  const restart = async (h: Harness): Promise<Harness> => {
    await Promise.all(providers.map((p) => p.stopAll('SIGKILL')));
    expect(claudeAgents()).toEqual([]);
    await h.runtime.settle();
    const h2 = h.restart();
    await h2.runtime.recoverAfterRestart();
    return h2;
  };

  return { providers, setup, restart, workspace };
}
