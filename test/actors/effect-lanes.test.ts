import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointHandlers } from '../../src/actors/checkpoint-effects.js';
import { EffectWorker } from '../../src/actors/effect-worker.js';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { useRuntime } from '../support/runtime.js';
import { TempFolders, tempDir } from '../support/temp.js';
import { freezeFirst, processesIn, signal } from '../support/processes.js';

const data = tempDir('baton-lanes-lease-');
const folders = new TempFolders();
afterAll(() => {
  data.cleanup();
  folders.removeAll();
});
const open = useRuntime({ checkpoints: new CheckpointStore({ root: join(data.dir, 'checkpoints') }) });

describe('effect lanes and leases', () => {
  it('a long effect keeps its lease while it runs: it is never claimed a second time, and runs once', async () => {
    const h = open();
    const ws = folders.make('baton-lanes-lease-ws-');
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(ws, `d${d}`));
      for (let f = 0; f < 100; f++) writeFileSync(join(ws, `d${d}`, `f${f}`), `${d}/${f}\n`);
    }
    const threadId = await h.thread({ cwd: ws });
    const leaseMs = 1_000;
    const worker = new EffectWorker(h.runtime, checkpointHandlers(h.runtime.checkpoints), 'lease-test', leaseMs);
    expect(await h.command({ type: 'thread.message.send', threadId, text: 'go' })).toMatchObject({ ok: true });

    expect(worker.poll()).toBe(1);
    // The baseline's capture, frozen in the act (its git, or the shell running it).
    const frozen = await freezeFirst(() => processesIn(['git', 'sh'], ws), 'the baseline capture');
    try {
      // Long past its first lease: the worker renews it instead of claiming the effect again.
      h.clock.advance(leaseMs * 5);
      expect(worker.poll()).toBe(0);
      const baseline = h.effect('checkpoint.baseline', threadId);
      expect(baseline).toMatchObject({ status: 'running', attempts: 1, leaseOwner: 'lease-test' });
      expect(baseline.leaseExpiresAt).toBeGreaterThan(h.clock.nowMs());
    } finally {
      frozen.forEach((pid) => signal(pid, 'SIGCONT'));
    }
    await worker.drain();
    expect(h.effect('checkpoint.baseline', threadId)).toMatchObject({ status: 'completed', attempts: 1 });
    expect(h.store.projections.list('checkpoints', threadId)).toHaveLength(1);
  });
});
