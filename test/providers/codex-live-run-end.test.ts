import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../src/persistence/store.js';
import type { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { useScriptedModel } from '../support/model.js';
import type { Harness } from '../support/runtime.js';
import { TempFolders, tempDir } from '../support/temp.js';
import type { CodexScenario } from './codex-scenarios.js';
import { runCodexScenario as runScenario } from './codex-scenario-channels.js';

/**
 * Live against the real `codex app-server` and the scripted model: a run that ended (Baton
 * restarted, Codex died) asks nothing more of Codex, and its requests end with the reason.
 */
const model = useScriptedModel();
const data = tempDir('baton-run-end-live-');
const folders = new TempFolders();
const finished: { providers: CodexProvider[]; stores: Store[] }[] = [];
/** The signal the scenario's `kill` sends next (SIGKILL unless a test freezes Codex), and what it froze. */
let nextSignal: NodeJS.Signals = 'SIGKILL';
const frozen = new Set<number>();
afterEach(() => {
  nextSignal = 'SIGKILL';
  for (const pid of frozen) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  frozen.clear();
  for (const { providers, stores } of finished.splice(0)) {
    providers.forEach((p) => p.stopAll('SIGKILL'));
    stores.forEach((s) => s.close());
  }
});
afterAll(() => {
  data.cleanup();
  folders.removeAll();
});

async function live(scenario: CodexScenario): Promise<void> {
  model.enqueue(...scenario.model);
  const done = await runScenario({
    scenario,
    cwd: realpathSync(folders.make('baton-run-end-ws-')),
    dir: folders.make('baton-run-end-run-'),
    checkpointsRoot: join(data.dir, 'checkpoints'),
    live: true,
    modelBaseUrl: model.baseUrl,
    modelAsked: (n) => model.waitForRequests(n),
    kill: (provider, threadId) => {
      const pid = provider.adapter(threadId).pid!;
      if (nextSignal === 'SIGSTOP') frozen.add(pid);
      process.kill(pid, nextSignal);
      nextSignal = 'SIGKILL';
    },
  });
  finished.push(done);
}

/** Waits until `done()` holds, checking on every turn of the event loop (no fixed sleep), or fails after `timeoutMs`. */
async function until(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

const send = async (h: Harness, threadId: string, text: string) => {
  const ack = (await h.command({ type: 'thread.message.send', threadId, text })) as {
    ok: boolean;
    result: { runId: string };
  };
  expect(ack.ok).toBe(true);
  return ack.result.runId;
};
const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;
/** Every text Baton's Codex sent the model, in order. */
const modelInputs = () => model.requests.map((r) => JSON.stringify(r.body.input ?? r.body));

describe('a run that ended asks nothing more of Codex (live)', () => {
  it('Baton dies before a turn reached Codex: after recovery no turn/start and no model request for the ended run, and the next message completes', async () => {
    await live({
      name: 'ghost_turn',
      model: [{ kind: 'text', text: 'Only the second.' }],
      async drive({ h, cwd, restart }) {
        const threadId = await h.thread({ threadId: 'thr_ghost', cwd });
        const first = await send(h, threadId, 'first message, never sent');
        expect(h.effect('provider.turn.start', threadId)).toMatchObject({ status: 'pending' });
        const h2 = await restart();
        await h2.runtime.recoverAfterRestart();
        await h2.until(() => status(h2, first) === 'interrupted');
        expect(
          h2.store.outbox
            .list({ threadId })
            .filter((e) => e.kind === 'provider.turn.start')
            .map((e) => e.status),
        ).toEqual(['cancelled']);
        expect(model.requests).toHaveLength(0);
        const second = await send(h2, threadId, 'second message');
        await h2.until(() => ['completed', 'failed', 'interrupted'].includes(status(h2, second) ?? ''), 40_000);
        expect(status(h2, second)).toBe('completed');
        expect(modelInputs()).toHaveLength(1);
        expect(modelInputs()[0]).toContain('second message');
        expect(modelInputs()[0]).not.toContain('first message');
        const started = h2.store.events
          .readThreadAfter(threadId, 0)
          .filter((e) => e.type === 'run.started')
          .map((e) => (e.payload as { runId: string }).runId);
        expect(started).toEqual([first, second]);
      },
    });
  }, 90_000);

  it('Codex SIGKILLed while an approval is pending: the request ends cancelled with the reason, the pending count is 0, and answering it is not_resumable', async () => {
    await live({
      name: 'approval_then_crash',
      model: [
        { kind: 'exec', command: 'echo crashed > never.txt', escalated: true, callId: 'call_crash' },
        { kind: 'text', text: 'Back.' },
      ],
      async drive({ h, cwd, kill }) {
        const threadId = await h.thread({ threadId: 'thr_crash_approval', cwd });
        const runId = await send(h, threadId, 'needs approval');
        await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
        const request = h.store.projections.list('requests', threadId)[0]!;
        kill(threadId);
        await h.until(
          () => status(h, runId) === 'failed' && h.store.projections.get('requests', request.id)!.status !== 'pending',
        );
        const ended = h.store.projections.get('requests', request.id)!;
        expect(ended).toMatchObject({ status: 'cancelled', responseCapability: { type: 'not_resumable' } });
        const cancelled = h.store.events
          .readThreadAfter(threadId, 0)
          .find((e) => e.type === 'runtime-request.cancelled');
        expect((cancelled?.payload as { reason: string }).reason).toMatch(/\S/);
        expect(h.store.projections.get('threads', threadId)).toMatchObject({ pendingRequestCount: 0 });
        expect(h.store.projections.get('runs', runId)!.error).toMatchObject({
          code: expect.any(String),
          message: expect.any(String),
        });
        expect(
          await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' }),
        ).toMatchObject({ ok: false, error: { code: 'not_resumable' } });
        const next = await send(h, threadId, 'carry on');
        await h.until(() => status(h, next) === 'completed', 40_000);
      },
    });
  }, 90_000);

  it('a turn start in flight when its run ends (Codex frozen, then SIGKILLed) reads cancelled: the lease is lost, the handler does not crash, the next message completes', async () => {
    await live({
      name: 'turn_start_in_flight',
      model: [
        { kind: 'text', text: 'First.' },
        { kind: 'text', text: 'After the crash.' },
      ],
      async drive({ h, cwd, kill }) {
        const threadId = await h.thread({ threadId: 'thr_in_flight', cwd });
        const one = await send(h, threadId, 'first');
        await h.until(() => status(h, one) === 'completed');
        // Codex is idle between turns (no shell command running); freeze it so turn/start hangs.
        nextSignal = 'SIGSTOP';
        kill(threadId);
        const two = await send(h, threadId, 'second');
        const turnStart = h.effect('provider.turn.start', threadId);
        const baseline = h.store.outbox
          .list({ threadId })
          .filter((e) => e.kind === 'checkpoint.baseline')
          .at(-1)!;
        const lane = h.worker.runOnce();
        // The baseline settles first; the turn start's handler is then past its gate, waiting on the frozen Codex.
        await until(() => h.store.outbox.get(baseline.id)!.status === 'completed');
        expect(h.store.outbox.get(turnStart.id)).toMatchObject({ status: 'running' });
        kill(threadId);
        await lane;
        await h.until(() => status(h, two) === 'failed');
        expect(h.store.outbox.get(turnStart.id)).toMatchObject({
          status: 'cancelled',
          lastError: expect.stringContaining(`run ${two} ended failed`),
        });
        expect(
          h.store.events
            .readThreadAfter(threadId, 0)
            .filter((e) => e.type === 'run.terminal' && (e.payload as { runId: string }).runId === two),
        ).toHaveLength(1);
        const three = await send(h, threadId, 'third');
        await h.until(() => ['completed', 'failed', 'interrupted'].includes(status(h, three) ?? ''), 40_000);
        expect(status(h, three)).toBe('completed');
        expect(model.requests).toHaveLength(2);
      },
    });
  }, 90_000);
});
