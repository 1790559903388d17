import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../src/persistence/store.js';
import type { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { useScriptedModel } from '../support/model.js';
import { send, status } from '../support/scenario-kit/baton.js';
import { TempFolders } from '../support/temp.js';
import { runCodexScenario } from './codex-scenario-channels.js';
import { codexModel, type CodexScenario } from './codex-scenarios.js';

/**
 * Live against the real `codex app-server` and the scripted model: what Baton does about a
 * Codex subagent beyond the shared scenarios. Codex leaves a subagent running when its root
 * turn is interrupted (measured, docs/codex.md); Baton's interrupt of the run stops it too.
 */
const model = useScriptedModel();
const folders = new TempFolders();
const finished: { providers: CodexProvider[]; stores: Store[] }[] = [];
afterEach(() => {
  for (const { providers, stores } of finished.splice(0)) {
    providers.forEach((p) => p.stopAll('SIGKILL'));
    stores.forEach((s) => s.close());
  }
});
afterAll(() => folders.removeAll());

async function live(scenario: CodexScenario): Promise<void> {
  model.enqueue(...scenario.model);
  const dir = folders.make('baton-codex-sub-run-');
  finished.push(
    await runCodexScenario({
      scenario,
      cwd: realpathSync(folders.make('baton-codex-sub-ws-')),
      dir,
      checkpointsRoot: join(dir, 'checkpoints'),
      live: true,
      modelBaseUrl: model.baseUrl,
      modelAsked: (n) => model.waitForRequests(n),
      kill: (provider, threadId) => process.kill(provider.adapter(threadId).pid!, 'SIGKILL'),
    }),
  );
}

describe('a Codex subagent, live', () => {
  it('an interrupt of the run interrupts its running subagent too: both end interrupted, nothing is asked of the model again', async () => {
    await live({
      name: 'subagent_interrupt',
      model: codexModel([
        {
          kind: 'subagent',
          description: 'Think forever',
          prompt: 'Think about it.',
          steps: [{ kind: 'hang' }],
          callId: 'call_sub_hang',
        },
      ]),
      async drive({ h, cwd, modelAsked }) {
        const threadId = await h.thread({ threadId: 'thr_sub_interrupt', cwd });
        const runId = await send(h, threadId, 'have a helper think');
        const subagent = () =>
          h.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'subagent' && n.runId === runId);
        // The child's model request hangs: its turn runs, and the parent waits on it.
        await h.until(() => subagent()?.detail?.['nativeTurnId'] !== undefined);
        await modelAsked(2);
        expect((await h.command({ type: 'run.interrupt', runId })).ok).toBe(true);
        await h.until(() => status(h, runId) === 'interrupted' && subagent()?.status === 'interrupted');
        expect(model.requests.length).toBe(2);
      },
    });
  });
});
