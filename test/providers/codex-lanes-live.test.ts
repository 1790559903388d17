import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTerminalStatuses } from '../../src/domain/statuses.js';
import { useLiveCodex } from '../support/live-codex.js';
import type { Harness } from '../support/runtime.js';
import type { Runtime } from '../../src/actors/runtime.js';
import { freezeFirst, processesIn, signal } from '../support/processes.js';

/**
 * No thread waits on another: the effect worker runs each thread's effects on its own lane
 * and keeps claiming for the others while one lane is stuck. Live: real Codex processes, a
 * real frozen process (SIGSTOP), a real slow checkpoint (its git frozen mid-capture).
 */
// An interrupt Codex never answers stays outstanding for the whole test.
const { model, providers, open, workspace } = useLiveCodex({
  streamIdleTimeoutMs: 60_000,
  provider: () => ({ interruptTimeoutMs: 120_000 }),
});

const run = (h: Harness, runId: string) => h.store.projections.get('runs', runId)!;
const ended = (h: Harness, runId: string) => (runTerminalStatuses as readonly string[]).includes(run(h, runId).status);

async function send(h: Harness, threadId: string, text: string): Promise<string> {
  const ack = (await h.command({ type: 'thread.message.send', threadId, text })) as {
    ok: boolean;
    result: { runId: string };
  };
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
  return ack.result.runId;
}

/**
 * Waits for a condition on committed state without draining the effect worker (a test
 * whose worker runs by itself, where one thread's effect is meant to stay outstanding):
 * checked now and after every commit. Rejects after `timeoutMs` with `what`.
 */
function whenCommitted(runtime: Runtime, condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (condition()) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`not reached in ${timeoutMs} ms: ${what}`));
    }, timeoutMs);
    const off = runtime.onEvents(() => {
      if (!condition()) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

/** The worker running by itself, as in Baton's main job; stopped, and its lanes finished, at the end. */
async function withWorker(h: Harness, body: () => Promise<void>, release: () => void): Promise<void> {
  const stop = h.worker.start();
  try {
    await body();
  } finally {
    release();
    stop();
    await h.worker.idle();
    await h.runtime.settle();
  }
}

describe("effect lanes, live: one thread's stuck effect holds only its own thread", () => {
  it("a frozen Codex with an interrupt in flight does not hold another thread's run", async () => {
    const h = open();
    const a = await h.thread({ cwd: workspace() });
    const b = await h.thread({ cwd: workspace() });
    model.enqueue({ kind: 'hang' });
    let pid = 0;
    await withWorker(
      h,
      async () => {
        const runA = await send(h, a, 'thread A: a turn that hangs');
        await whenCommitted(h.runtime, () => run(h, runA).status === 'running', 'run A running');
        await model.waitForRequests(1);
        pid = providers[0]!.adapter(a).pid!;
        process.kill(pid, 'SIGSTOP');
        expect(await h.command({ type: 'run.interrupt', runId: runA })).toMatchObject({ ok: true });

        model.enqueue({ kind: 'text', text: 'B is answered.' });
        const runB = await send(h, b, 'thread B: hello');
        await whenCommitted(h.runtime, () => run(h, runB).status === 'completed', 'run B completed');
        // B ran start to end while A's interrupt was still waiting on its frozen Codex.
        expect(h.effect('provider.turn.interrupt', a).status).toBe('running');
        expect(ended(h, runA)).toBe(false);
      },
      () => pid && signal(pid, 'SIGKILL'),
    );
  }, 60_000);

  it("a slow checkpoint on one thread does not hold another thread's turn start", async () => {
    const h = open();
    // A workspace big enough that its capture is caught in the act, then frozen there.
    const wsA = workspace();
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(wsA, `dir${d}`));
      for (let f = 0; f < 100; f++) writeFileSync(join(wsA, `dir${d}`, `file${f}.txt`), `file ${d}/${f}\n`);
    }
    const a = await h.thread({ cwd: wsA });
    const b = await h.thread({ cwd: workspace() });
    let gits: number[] = [];
    await withWorker(
      h,
      async () => {
        const runA = await send(h, a, 'thread A: after a slow checkpoint');
        // Its capture frozen in the act: the git (or the shell running git) in A's workspace.
        gits = await freezeFirst(
          () => processesIn(['git', 'sh'], wsA),
          "the capture of thread A's baseline checkpoint",
        );

        const runB = await send(h, b, 'thread B: straight away');
        await whenCommitted(h.runtime, () => run(h, runB).status === 'completed', 'run B completed');
        // B's turn started, ran and ended while A's baseline was still being captured.
        expect(h.effect('checkpoint.baseline', a).status).toBe('running');
        expect(run(h, runA).status).toBe('starting');
        expect(model.requests).toHaveLength(1);

        gits.forEach((p) => signal(p, 'SIGCONT'));
        await whenCommitted(
          h.runtime,
          () => run(h, runA).status === 'completed',
          'run A completed once its checkpoint was',
        );
      },
      () => gits.forEach((p) => signal(p, 'SIGCONT')),
    );
  }, 60_000);
});
