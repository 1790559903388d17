import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { boundNativeThreadRef } from '../../src/actors/runtime-provider-host.js';
import type { Store } from '../../src/persistence/store.js';
import type { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { useScriptedModel } from '../support/model.js';
import { assistantTexts, send, status } from '../support/scenario-kit/baton.js';
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

  it("a fork from the subagent's node forks the child's own thread: the fork's first request carries the child's conversation, not the parent's", async () => {
    await live({
      name: 'subagent_fork',
      model: [
        ...codexModel([
          {
            kind: 'subagent',
            description: 'Work out the answer',
            prompt: 'What is six times seven? Answer in one sentence.',
            steps: [{ kind: 'text', text: 'Six times seven is 42.' }],
            callId: 'call_sub_fork',
          },
          { kind: 'text', text: 'My helper worked it out: 42.' },
        ]),
        { kind: 'text', text: 'And doubled, 84.' },
      ],
      async drive({ h, cwd }) {
        const threadId = await h.thread({ threadId: 'thr_sub_source', cwd });
        const runId = await send(h, threadId, 'ask a helper what six times seven is');
        await h.until(() => status(h, runId) === 'completed');
        const sub = h.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'subagent')!;
        expect(sub.status).toBe('completed');
        const childThread = sub.detail?.['nativeThreadId'];
        expect(typeof childThread).toBe('string');
        const asked = model.requests.length;
        const forked = await h.command({
          type: 'thread.fork',
          sourceThreadId: threadId,
          source: { type: 'node', nodeId: sub.id },
          threadId: 'thr_sub_fork',
        });
        expect(forked.ok, JSON.stringify(forked)).toBe(true);
        const forkRun = await send(h, 'thr_sub_fork', 'now double it');
        await h.until(() => status(h, forkRun) === 'completed');
        const resolved = h.store.events
          .readThreadAfter('thr_sub_fork', 0)
          .find((e) => e.type === 'thread.fork-resolved');
        expect((resolved?.payload as { strategy?: string }).strategy).toBe('native_fork');
        // One request for the fork's turn: the child's conversation, then the fork's message; nothing of the parent's.
        expect(model.requests.length).toBe(asked + 1);
        const told = JSON.stringify(model.requests.at(-1)!.body.input);
        expect(told).toContain('What is six times seven?');
        expect(told).toContain('Six times seven is 42.');
        expect(told).toContain('now double it');
        expect(told).not.toContain('ask a helper');
        expect(told).not.toContain('My helper worked it out');
        // Codex forked the child's thread into a new one, bound to the fork's own provider thread.
        const forkThread = h.store.projections.get('runs', forkRun)!.providerThreadId!;
        const native = boundNativeThreadRef(h.store, forkThread);
        expect(native).not.toBeNull();
        expect([
          childThread,
          boundNativeThreadRef(h.store, h.store.projections.get('runs', runId)!.providerThreadId!),
        ]).not.toContain(native);
        expect(assistantTexts(h, 'thr_sub_fork').at(-1)).toBe('And doubled, 84.');
      },
    });
  });
});
