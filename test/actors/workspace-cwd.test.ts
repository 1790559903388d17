import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Runtime } from '../../src/actors/runtime.js';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { Store } from '../../src/persistence/store.js';
import { tempDir } from '../support/temp.js';
import { codexRegistry } from '../support/providers.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/** Baton as the server runs it: its data dir (the store, the checkpoints) beside a workspace. */
function open() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const dataDir = join(t.dir, 'data');
  const workspace = join(t.dir, 'ws');
  mkdirSync(dataDir);
  mkdirSync(workspace);
  const store = Store.open(join(dataDir, 'baton.sqlite'));
  cleanups.unshift(() => store.close());
  const runtime = new Runtime({
    store,
    providers: codexRegistry(),
    ids: new SequentialIds(),
    dataDir,
    checkpoints: new CheckpointStore({ root: join(dataDir, 'checkpoints') }),
  });
  return { runtime, store, root: t.dir, dataDir, workspace };
}

describe('thread.create takes only a real workspace directory', () => {
  it('refuses each bad cwd with invalid_payload and stores nothing', async () => {
    const { runtime, store, root, dataDir, workspace } = open();
    const file = join(workspace, 'file.txt');
    writeFileSync(file, 'x');
    mkdirSync(join(dataDir, 'inside'));
    symlinkSync(dataDir, join(workspace, 'link-to-data'));
    const bad: Record<string, string> = {
      relative: 'ws',
      'relative with dots': './ws',
      missing: join(root, 'missing'),
      'a file': file,
      NUL: `${workspace}\0/x`,
      newline: `${workspace}\nx`,
      'a tab': `${workspace}\tx`,
      'the filesystem root': '/',
      'the root, spelt otherwise': '/tmp/..',
      'the data dir': dataDir,
      'inside the data dir': join(dataDir, 'inside'),
      'the checkpoint store (inside the data dir, not made yet)': join(dataDir, 'checkpoints'),
      'a parent of the data dir': root,
      'a symlink to the data dir': join(workspace, 'link-to-data'),
    };
    let n = 0;
    for (const [what, cwd] of Object.entries(bad)) {
      const commandId = `c_bad_${++n}`;
      const ack = await runtime.dispatch({ commandId, type: 'thread.create', cwd });
      expect(ack, what).toMatchObject({ ok: false, commandId, error: { code: 'invalid_payload' } });
      expect(store.receipts.get(commandId), what).toBeNull();
    }
    expect(store.lastSequence()).toBe(0);
    expect(store.entities.count()).toBe(0);
    expect(store.projections.list('threads')).toEqual([]);

    expect(await runtime.dispatch({ commandId: 'c_good', type: 'thread.create', cwd: workspace })).toMatchObject({
      ok: true,
    });
    expect(
      await runtime.dispatch({ commandId: 'c_good_dots', type: 'thread.create', cwd: join(workspace, '..', 'ws') }),
    ).toMatchObject({ ok: true });
  });

  it('thread.settings.update cannot change the cwd', async () => {
    const { runtime, workspace } = open();
    const ack = await runtime.dispatch({ commandId: 'c1', type: 'thread.create', cwd: workspace });
    if (!ack.ok) throw new Error(`thread.create refused: ${ack.error.message}`);
    const threadId = String(ack.result.threadId);
    const sequence = runtime.store.lastSequence();
    expect(
      await runtime.dispatch({ commandId: 'c2', type: 'thread.settings.update', threadId, cwd: '/' }),
    ).toMatchObject({ ok: false, error: { code: 'invalid_command' } });
    expect(runtime.store.lastSequence()).toBe(sequence);
    expect(runtime.store.projections.get('threads', threadId)!.workspace.cwd).toBe(workspace);
  });
});
