import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { claudeCapabilities } from '../../src/providers/claude/claude-capabilities.js';
import { ClaudeProvider } from '../../src/providers/claude/claude-provider.js';
import type { ScriptedMessagesServer } from '../../src/providers/model/scripted-messages-server.js';
import type { ChannelSession, ScenarioChannel } from '../support/scenario-kit/channels.js';
import { claudeModel } from './claude-model.js';

/** Claude's channels into the scenario kit: live (the real agent against the scripted Messages-API model). */

/** A live channel, and a way to wait until every agent process it started is gone. */
export interface ClaudeLiveChannel extends ScenarioChannel {
  /** Stops every agent the latest run started and resolves once their processes have exited. */
  gone(): Promise<void>;
}

/** The real Claude agent (the SDK's native binary) against the scripted Messages-API model. */
export function claudeLiveChannel(model: ScriptedMessagesServer): ClaudeLiveChannel {
  let providers: ClaudeProvider[] = [];
  const stopping: Promise<void>[] = [];
  const stopAll = () => providers.forEach((p) => stopping.push(p.stopAll('SIGKILL')));
  return {
    kind: 'live',
    open(scenario, place): ChannelSession {
      model.enqueue(...claudeModel(scenario.model, { cwd: place.cwd }));
      const runProviders: ClaudeProvider[] = [];
      const adjust = scenario.adjustCapabilities;
      providers = runProviders;
      return {
        live: true,
        harness: {
          ...(adjust ? { capabilities: () => adjust(claudeCapabilities) } : {}),
          checkpoints: new CheckpointStore({ root: place.checkpointsRoot }),
          defaultProvider: 'claude',
          providers: (runtime) => {
            const provider = new ClaudeProvider(runtime, {
              endpoint: { baseUrl: model.baseUrl, model: 'claude-sonnet-4-5' },
              dataDir: join(place.dir, 'data'),
            });
            runProviders.push(provider);
            return [provider.provider()];
          },
        },
        modelAsked: (n) => model.waitForRequests(n),
        kill: (threadId) => {
          const pid = runProviders.at(-1)?.adapter(threadId).pid;
          if (!pid) throw new Error(`no Claude agent runs for ${threadId}`);
          process.kill(pid, 'SIGKILL');
        },
        stop: stopAll,
        describe: () => `the model was asked ${model.messageRequests.length} times`,
      };
    },
    async gone() {
      stopAll();
      await Promise.all(stopping.splice(0));
    },
  };
}
