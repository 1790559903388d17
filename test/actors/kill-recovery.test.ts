import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Runtime } from '../../src/actors/runtime.js';
import { EffectWorker } from '../../src/actors/effect-worker.js';
import { checkpointHandlers } from '../../src/actors/checkpoint-effects.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { Store } from '../../src/persistence/store.js';
import { tempDir } from '../support/temp.js';
import { runUntilKilled } from '../support/child.js';
import { codexRegistry } from '../support/providers.js';

/** Runs the child until it has committed `deltas` deltas, then SIGKILLs it. */
async function runUntilDeltas(dbPath: string, deltas: number): Promise<number> {
  let last = 0;
  const { signal, stderr } = await runUntilKilled(
    'thread-loop.ts',
    [dbPath],
    (line) => line !== 'ready' && (last = Number(line)) === deltas,
  );
  if (signal !== 'SIGKILL') throw new Error(`child exited by itself: ${stderr}`);
  return last;
}

describe('SIGKILL mid-run', () => {
  it('a new process rehydrates the thread and runs the active and queued runs to their end', async () => {
    const { dir, cleanup } = tempDir();
    const dbPath = join(dir, 'kill.sqlite');
    try {
      const committed = await runUntilDeltas(dbPath, 25);
      const store = Store.open(dbPath);
      const runtime = new Runtime({ store, providers: codexRegistry(), ids: new SequentialIds('after') });
      const worker = new EffectWorker(runtime, checkpointHandlers(null));
      // Rehydration alone (no provider policy here): the run goes on from the next provider events.
      expect(runtime.liveThreadCount).toBe(0);

      const threadId = 'thr_kill';
      const finishActive = async () => {
        const shell = store.projections.get('threads', threadId)!;
        const run = store.projections.get('runs', shell.activeRunId!)!;
        const attempt = run.attempts.at(-1)!;
        if (run.status === 'starting') {
          expect(
            (
              await runtime.ingest({
                type: 'turn.started',
                threadId,
                runId: run.id,
                attemptId: attempt.id,
                nodeId: attempt.rootNodeId,
                nativeTurnRef: null,
              })
            ).ok,
          ).toBe(true);
        }
        expect(
          (
            await runtime.ingest({
              type: 'turn.completed',
              threadId,
              runId: run.id,
              attemptId: attempt.id,
              nodeId: attempt.rootNodeId,
              status: 'completed',
              error: null,
            })
          ).ok,
        ).toBe(true);
        await worker.drain();
        return run.id;
      };
      // The streamed text survived up to at least the last reported delta.
      expect(store.projections.get('messages', 'msg_stream')!.text.length).toBeGreaterThanOrEqual(committed);
      const ended = [await finishActive(), await finishActive(), await finishActive()];
      const runs = ended.map((id) => store.projections.get('runs', id)!);
      expect(runs.map((r) => [r.ordinal, r.status])).toEqual([
        [1, 'completed'],
        [2, 'completed'],
        [3, 'completed'],
      ]);
      expect(store.projections.get('messages', 'msg_stream')).toMatchObject({ completed: true });
      expect(store.projections.get('threads', threadId)).toMatchObject({
        runCount: 3,
        activeRunId: null,
        queuedRunCount: 0,
      });
      const sequences = store.events.readAfter(0).map((e) => e.sequence);
      expect(sequences).toEqual(sequences.map((_, i) => i + 1));
      store.close();
    } finally {
      cleanup();
    }
  }, 60_000);
});
