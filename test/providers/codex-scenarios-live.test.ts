import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { ManualClock } from '../../src/domain/sources.js';
import type { Store } from '../../src/persistence/store.js';
import { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import { createHarness } from '../support/runtime.js';
import { tempDir } from '../support/temp.js';
import { codexScenarios, withoutNativeSteering } from './codex-scenarios.js';

/**
 * Every shared Codex scenario, live: the real `codex app-server` and the scripted model.
 * The replay test runs the same scenarios from transcripts recorded the same way.
 */
const model = new ScriptedModelServer();
const data = tempDir('baton-scenarios-live-');
const providers: CodexProvider[] = [];
const stores: Store[] = [];

beforeAll(async () => {
  await model.start();
});
afterEach(() => {
  providers.splice(0).forEach((p) => p.stopAll('SIGKILL'));
  stores.splice(0).forEach((s) => s.close());
  model.reset();
});
afterAll(async () => {
  await model.stop();
  data.cleanup();
});

describe('Codex scenarios, live', () => {
  it.each(codexScenarios.map((s) => s.name))('%s', async (name) => {
    const scenario = codexScenarios.find((s) => s.name === name)!;
    model.enqueue(...scenario.model);
    const ws = tempDir('baton-scenarios-ws-');
    const run = tempDir('baton-scenarios-run-');
    afterAll(() => (ws.cleanup(), run.cleanup()));
    const h = createHarness(
      {
        ...(scenario.withoutNativeSteering ? { capabilities: withoutNativeSteering } : {}),
        checkpoints: new CheckpointStore({ root: join(data.dir, 'checkpoints') }),
        handlers: (runtime) => {
          const provider = new CodexProvider(runtime, { endpoint: { baseUrl: model.baseUrl, model: 'gpt-5.1-codex', streamIdleTimeoutMs: 5_000 }, dataDir: join(run.dir, 'data') });
          providers.push(provider);
          return provider.handlers();
        },
      },
      join(run.dir, 'baton.sqlite'),
      'a',
      new ManualClock(),
      (store) => stores.push(store),
    );
    await scenario.drive({
      h,
      cwd: realpathSync(ws.dir),
      modelAsked: (n) => model.waitForRequests(n),
      kill: (threadId) => process.kill(providers.at(-1)!.adapter(threadId).pid!, 'SIGKILL'),
      restart: async () => {
        providers.forEach((p) => p.stopAll('SIGKILL'));
        await h.runtime.settle();
        return h.restart();
      },
    });
  }, 60_000);
});
