import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Runtime } from '../../src/actors/runtime.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { Store } from '../../src/persistence/store.js';
import { tempDir } from '../support/temp.js';
import { codexRegistry } from '../support/providers.js';

describe('10,000 threads on disk', () => {
  it('start without hydrating any; a command on one hydrates just that one; idle threads passivate', async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'many.sqlite');
    try {
      const seed = new Runtime({
        store: Store.open(path),
        providers: codexRegistry(),
        ids: new SequentialIds('seed'),
        maxLiveThreads: 100,
      });
      const acks = await Promise.all(
        Array.from({ length: 10_000 }, (_, i) =>
          seed.dispatch({ commandId: `create_${i}`, type: 'thread.create', threadId: `thr_${i}`, cwd: '/tmp' }),
        ),
      );
      expect(acks.every((a) => a.ok)).toBe(true);
      // The live set stays bounded while writing: least recently used idle threads leave memory.
      expect(seed.liveThreadCount).toBeLessThanOrEqual(100);
      seed.store.close();

      const store = Store.open(path);
      const runtime = new Runtime({ store, providers: codexRegistry(), ids: new SequentialIds('after') });
      expect(runtime.liveThreadCount).toBe(0);
      expect(store.projections.list('threads').length).toBe(10_000);

      const ack = await runtime.dispatch({
        commandId: 'send_1',
        type: 'thread.message.send',
        threadId: 'thr_4321',
        text: 'hello',
      });
      expect(ack).toMatchObject({ ok: true, result: { dispatched: 'started' } });
      expect(runtime.liveThreadCount).toBe(1);
      expect(runtime.thread('thr_4321').liveEntityCount).toBeGreaterThan(0);

      expect(runtime.passivateIdle()).toBe(1);
      expect(runtime.liveThreadCount).toBe(0);
      store.close();
    } finally {
      cleanup();
    }
  }, 120_000);
});
