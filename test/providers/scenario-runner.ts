import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { ManualClock } from '../../src/domain/sources.js';
import type { Store } from '../../src/persistence/store.js';
import { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import type { LineChannel } from '../../src/providers/transport/line-channel.js';
import { createHarness, type Harness } from '../support/runtime.js';
import { withoutNativeSteering, type CodexScenario } from './codex-scenarios.js';

export interface ScenarioRun {
  scenario: CodexScenario;
  /** The workspace the scenario's threads use. */
  cwd: string;
  /** Where the run's SQLite file and Codex data live. */
  dir: string;
  checkpointsRoot: string;
  modelBaseUrl: string;
  /** Replays and recordings give their channels; live runs spawn the binary. */
  channelFor?: (threadId: string, sessionId: string, spawn: () => LineChannel) => LineChannel;
  modelAsked(n: number): Promise<void>;
  /** Against the real binary (live or recording) rather than a replay. */
  live: boolean;
  /** How the scenario's kill is carried out: a real SIGKILL, or a replayed exit. */
  kill(provider: CodexProvider, threadId: string): void;
}

/** Where a run keeps Codex's data (CODEX_HOME, frame logs): transcripts name it `{{dataDir}}`. */
export const dataDirOf = (dir: string): string => join(dir, 'data');

/**
 * Runs one shared Codex scenario on a fresh runtime, the same way live, recorded and
 * replayed. Returns what to close afterwards.
 */
export async function runScenario(run: ScenarioRun): Promise<{ h: Harness; providers: CodexProvider[]; stores: Store[] }> {
  const providers: CodexProvider[] = [];
  const stores: Store[] = [];
  const h = createHarness(
    {
      ...(run.scenario.withoutNativeSteering ? { capabilities: withoutNativeSteering } : {}),
      checkpoints: new CheckpointStore({ root: run.checkpointsRoot }),
      handlers: (runtime) => {
        const provider = new CodexProvider(runtime, {
          endpoint: { baseUrl: run.modelBaseUrl, model: 'gpt-5.1-codex', streamIdleTimeoutMs: 5_000, ...(run.scenario.mcpServers ? { mcpServers: run.scenario.mcpServers } : {}) },
          dataDir: dataDirOf(run.dir),
          ...(run.channelFor ? { channelFor: run.channelFor } : {}),
        });
        providers.push(provider);
        return provider.handlers();
      },
    },
    join(run.dir, 'baton.sqlite'),
    'a',
    new ManualClock(),
    (store) => stores.push(store),
  );
  const close = () => {
    providers.forEach((p) => p.stopAll('SIGKILL'));
    stores.forEach((s) => s.close());
  };
  try {
    await run.scenario.drive({
      h,
      cwd: run.cwd,
      live: run.live,
      modelAsked: (n) => run.modelAsked(n),
      kill: (threadId) => run.kill(providers.at(-1)!, threadId),
      restart: async () => {
        providers.forEach((p) => p.stopAll('SIGKILL'));
        await h.runtime.settle();
        return h.restart();
      },
    });
  } catch (error) {
    close();
    throw error;
  }
  return { h, providers, stores };
}
