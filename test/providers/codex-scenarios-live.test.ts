import { afterAll, afterEach, describe, it } from 'vitest';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../src/persistence/store.js';
import { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { useScriptedModel } from '../support/model.js';
import { TempFolders, tempDir } from '../support/temp.js';
import { codexScenarios } from './codex-scenarios.js';
import { runScenario } from './scenario-runner.js';

/**
 * Every shared Codex scenario, live: the real `codex app-server` and the scripted model.
 * The replay test runs the same scenarios from transcripts recorded the same way.
 */
const model = useScriptedModel();
const data = tempDir('baton-scenarios-live-');
const finished: { providers: CodexProvider[]; stores: Store[] }[] = [];

afterEach(() => {
  for (const { providers, stores } of finished.splice(0)) {
    providers.forEach((p) => p.stopAll('SIGKILL'));
    stores.forEach((s) => s.close());
  }
});
const folders = new TempFolders();
afterAll(() => {
  data.cleanup();
  folders.removeAll();
});

describe('Codex scenarios, live', () => {
  it.each(codexScenarios.map((s) => s.name))('%s', async (name) => {
    const scenario = codexScenarios.find((s) => s.name === name)!;
    model.enqueue(...scenario.model);
    const ws = { dir: folders.make('baton-scenarios-ws-') };
    const run = { dir: folders.make('baton-scenarios-run-') };
    const done = await runScenario({
      scenario,
      cwd: realpathSync(ws.dir),
      dir: run.dir,
      checkpointsRoot: join(data.dir, 'checkpoints'),
      live: true,
      modelBaseUrl: model.baseUrl,
      modelAsked: (n) => model.waitForRequests(n),
      kill: (provider, threadId) => process.kill(provider.adapter(threadId).pid!, 'SIGKILL'),
    });
    finished.push(done);
  }, 60_000);
});
