import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BatonClient } from '../../src/client/baton-client.js';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { Checkpoint } from '../../src/domain/entities.js';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import { CheckpointDiffResult, defaultBase, type DiffLimits } from '../../src/server/checkpoint-diff.js';
import { defaultDiffLimits, treeDiff } from '../../src/server/checkpoint-diff-git.js';
import { useApiBatons } from '../support/api-batons.js';
import { tempDir } from '../support/temp.js';
import { ok } from '../support/thread-client.js';

// The `checkpoint-diff` query: a checkpoint's changes file by file, from the trees Baton's
// checkpoint store keeps (real git), bounded; over the public Socket.IO API with the real Codex.

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function shadow() {
  const ws = tempDir('baton-diff-ws-');
  const data = tempDir('baton-diff-data-');
  cleanups.push(ws.cleanup, data.cleanup);
  const store = new CheckpointStore({ root: join(data.dir, 'checkpoints') });
  const write = (path: string, content: string | Buffer) => {
    mkdirSync(join(ws.dir, path, '..'), { recursive: true });
    writeFileSync(join(ws.dir, path), content);
  };
  let n = 0;
  const capture = async (base: string | null) => (await store.capture(ws.dir, `t/${++n}`, base)).commit;
  return { ws: ws.dir, store, write, capture, reader: async () => (await store.reader(ws.dir))! };
}

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join('');

describe('a diff between two captures', () => {
  it('lists each changed file in path order with its status, counts and patch; odd paths, binaries and a file that replaced a folder included', async () => {
    const s = shadow();
    s.write('keep.txt', 'same\n');
    s.write('edit.txt', 'one\ntwo\nthree\n');
    s.write('gone.txt', 'bye\n');
    s.write('dir/inner.txt', 'inside\n');
    s.write('image.bin', Buffer.from([0, 1, 2, 3, 0, 255]));
    const before = await s.capture(null);
    s.write('edit.txt', 'one\n2\nthree\nfour\n');
    rmSync(join(s.ws, 'gone.txt'));
    rmSync(join(s.ws, 'dir'), { recursive: true });
    s.write('dir', 'now a file\n');
    s.write('image.bin', Buffer.from([0, 9, 9, 9, 0, 255]));
    s.write('tab\there "q".txt', 'odd\n');
    s.write('ünï/cödé.txt', 'utf8\n');
    symlinkSync('edit.txt', join(s.ws, 'link'));
    const after = await s.capture(before);

    const diff = await treeDiff(await s.reader(), before, after, defaultDiffLimits);
    expect(diff.truncated).toBe(false);
    expect(diff.totalFiles).toBe(8);
    const byPath = Object.fromEntries(diff.files.map((f) => [f.path, f]));
    expect(diff.files.map((f) => [f.path, f.status, f.additions, f.deletions, f.binary])).toEqual([
      ['dir', 'added', 1, 0, false],
      ['dir/inner.txt', 'deleted', 0, 1, false],
      ['edit.txt', 'modified', 2, 1, false],
      ['gone.txt', 'deleted', 0, 1, false],
      ['image.bin', 'modified', 0, 0, true],
      ['link', 'added', 1, 0, false],
      ['tab\there "q".txt', 'added', 1, 0, false],
      ['ünï/cödé.txt', 'added', 1, 0, false],
    ]);
    expect(byPath['edit.txt']!.patch).toMatch(
      /^diff --git a\/edit.txt b\/edit.txt\nindex [0-9a-f]+\.\.[0-9a-f]+ 100644\n--- a\/edit.txt\n\+\+\+ b\/edit.txt\n@@ -1,3 \+1,4 @@\n one\n-two\n\+2\n three\n\+four\n$/,
    );
    // Each file has its own patch, never another's (the pathspec `dir` also matches dir/inner.txt).
    expect(byPath['dir']!.patch).toMatch(/^diff --git a\/dir b\/dir\nnew file mode 100644\n[^]*\+now a file\n$/);
    expect(byPath['dir/inner.txt']!.patch).toMatch(/^diff --git a\/dir\/inner.txt b\/dir\/inner.txt\ndeleted file/);
    expect(byPath['image.bin']!.patch).toMatch(/Binary files a\/image.bin and b\/image.bin differ\n$/);
    expect(byPath['link']!.patch).toMatch(/new file mode 120000[^]*\+edit.txt\n\\ No newline at end of file\n$/);
    expect(byPath['tab\there "q".txt']!.patch).toMatch(/^diff --git "a\/tab\\there \\"q\\".txt" /);
    expect(byPath['ünï/cödé.txt']!.patch).toMatch(/^diff --git a\/ünï\/cödé.txt b\/ünï\/cödé.txt\n[^]*\+utf8\n$/);
    for (const f of diff.files) expect(f.truncated).toBe(false);

    // From nothing: every file of the capture is added.
    const fromNothing = await treeDiff(await s.reader(), null, before, defaultDiffLimits);
    expect(fromNothing.files.map((f) => [f.path, f.status])).toEqual([
      ['dir/inner.txt', 'added'],
      ['edit.txt', 'added'],
      ['gone.txt', 'added'],
      ['image.bin', 'added'],
      ['keep.txt', 'added'],
    ]);
  });

  it('stays within its limits and says what it cut: the list, a long patch, a file too large to diff, the whole answer', async () => {
    const s = shadow();
    s.write('big.txt', lines(10, 'old'));
    const before = await s.capture(null);
    s.write('big.txt', lines(5_000, 'new')); // ~50 kB: over the file limit below
    s.write('long.txt', lines(400, 'line')); // a patch of ~4.4k chars
    for (let i = 0; i < 6; i++) s.write(`many/f${i}.txt`, lines(50, `f${i}`));
    const after = await s.capture(before);
    const limits: DiffLimits = { files: 5, patchChars: 1_000, totalPatchChars: 1_800, fileBytes: 20_000 };

    const diff = await treeDiff(await s.reader(), before, after, limits);
    expect(diff.totalFiles).toBe(8);
    expect(diff.truncated).toBe(true);
    expect(diff.files.map((f) => f.path)).toEqual(['big.txt', 'long.txt', 'many/f0.txt', 'many/f1.txt', 'many/f2.txt']);
    const [big, long, f0, f1, f2] = diff.files;
    // Too large to diff: counted, marked, no patch.
    expect(big).toMatchObject({ status: 'modified', additions: 5_000, deletions: 10, patch: '', truncated: true });
    // Cut at a line within the file's limit.
    expect(long!.truncated).toBe(true);
    expect(long!.patch.length).toBeLessThanOrEqual(1_000);
    expect(long!.patch).toMatch(/^diff --git a\/long.txt b\/long.txt\n[^]*\n$/);
    expect(long!.patch).toMatch(/\+line \d+\n$/);
    // f0's patch (~470 chars) fits; then the answer's limit cuts f1 at a line and leaves f2 out.
    expect(f0).toMatchObject({ truncated: false });
    expect(f0!.patch).toMatch(/\+f0 49\n$/);
    expect(f1!.truncated).toBe(true);
    expect(f1!.patch).toMatch(/^diff --git a\/many\/f1.txt [^]*\+f1 \d+\n$/);
    expect(f2).toMatchObject({ patch: '', truncated: true });
    expect(diff.files.reduce((n, f) => n + f.patch.length, 0)).toBeLessThanOrEqual(1_800);
  });
});

describe("a checkpoint's default base: what its own summary was counted against", () => {
  const row = (id: string, fields: Record<string, unknown>): Checkpoint =>
    Checkpoint.parse({
      id,
      scopeId: `cscope_${id}`,
      scopeKind: 'root_run',
      threadId: 'thr_1',
      runId: null,
      nodeId: null,
      runOrdinal: 0,
      status: 'ready',
      runStatus: null,
      treeRef: `tree_${id}`,
      diff: null,
      skippedFiles: [],
      reason: null,
      ...fields,
    });
  const sub = (id: string, runOrdinal: number, status: Checkpoint['status'] = 'ready') =>
    row(id, { scopeKind: 'subagent', runId: `run_${runOrdinal}`, nodeId: `node_${id}`, runOrdinal, status });
  // In the order the store lists them: by run ordinal, then as recorded.
  const all = [
    row('start', {}),
    row('old1', { runOrdinal: 1, runId: 'run_1', status: 'stale' }),
    row('run1', { runOrdinal: 1, runId: 'run_1' }),
    sub('s1', 2),
    sub('s2', 2, 'stale'),
    sub('s3', 2),
    row('run2', { runOrdinal: 2, runId: 'run_2' }),
  ];
  const baseOf = (id: string) =>
    defaultBase(
      all,
      all.find((c) => c.id === id)!,
    )?.id ?? null;

  it("is the run before's ready root checkpoint; a subagent's is the ready capture before it in its run", () => {
    expect(baseOf('start')).toBeNull();
    expect(baseOf('run1')).toBe('start');
    expect(baseOf('run2')).toBe('run1');
    expect(baseOf('s1')).toBe('run1');
    expect(baseOf('s3')).toBe('s1');
    // A stale root checkpoint is the base only when no ready one is left.
    expect(defaultBase(all.slice(0, 2).concat(all[3]!), all[3]!)?.id).toBe('old1');
  });
});

const token = 'checkpoint-diff-token-0123456789';
const api = useApiBatons({ token, prefix: 'baton-ckdiff-api', agentComms: ['codex'] });

describe('the checkpoint-diff query, over the API (the real Codex)', () => {
  it("answers a run's checkpoint with the files its run changed; another base on request; typed refusals", async () => {
    const responses = await new ScriptedModelServer().start();
    api.onCleanup(() => responses.stop());
    const app = await api.baton({ codexBaseUrl: responses.baseUrl });
    const ws = api.workspace();
    writeFileSync(join(ws, 'a.txt'), 'before\n');
    const t = await api.create(app.url, { cwd: ws, provider: 'codex' });
    const write = (command: string) => responses.enqueue({ kind: 'exec', command }, { kind: 'text', text: 'done' });
    write("printf 'one\\n' > one.txt");
    expect(await t.ended(await t.send('write one'))).toBe('completed');
    write("printf 'after\\n' >> a.txt && rm one.txt");
    expect(await t.ended(await t.send('change a, drop one'))).toBe('completed');

    const client = await BatonClient.connect(app.url, token);
    api.onCleanup(() => client.close());
    const checkpoints = async () =>
      z
        .array(Checkpoint)
        .parse(((await t.snapshot()) as unknown as { checkpoints: unknown }).checkpoints)
        .filter((c) => c.scopeKind === 'root_run');
    const [start, first, second] = await checkpoints();
    expect([start!.runOrdinal, first!.runOrdinal, second!.runOrdinal]).toEqual([0, 1, 2]);
    const query = async (q: Record<string, unknown>) => client.query({ type: 'checkpoint-diff', ...q });
    const diffOf = async (q: Record<string, unknown>) => {
      const answer = await query(q);
      expect(answer.ok, JSON.stringify(answer.error)).toBe(true);
      return CheckpointDiffResult.parse(answer.result);
    };

    // By default, from the checkpoint before: what run 2 did, as its summary counts it.
    const run2 = await diffOf({ checkpointId: second!.id });
    expect(run2).toMatchObject({ checkpointId: second!.id, baseCheckpointId: first!.id, totalFiles: 2 });
    expect(run2.files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['a.txt', 'modified', 1, 0],
      ['one.txt', 'deleted', 0, 1],
    ]);
    expect(second!.diff).toEqual({ files: 2, additions: 1, deletions: 1 });
    expect(run2.files[0]!.patch).toContain('\n before\n+after\n');
    expect(run2.limits).toEqual(defaultDiffLimits);
    // The start has nothing before it: every file is added.
    const atStart = await diffOf({ checkpointId: start!.id });
    expect(atStart.baseCheckpointId).toBeNull();
    expect(atStart.files.map((f) => [f.path, f.status])).toEqual([['a.txt', 'added']]);
    // Another base of the same thread: both runs' work at once.
    const both = await diffOf({ checkpointId: second!.id, baseCheckpointId: start!.id });
    expect(both.files.map((f) => [f.path, f.status])).toEqual([['a.txt', 'modified']]);

    // Refusals are typed.
    expect((await query({ checkpointId: 'ckpt_nope' })).error).toMatchObject({ code: 'not_found' });
    expect((await query({ checkpointId: second!.id, baseCheckpointId: 'ckpt_nope' })).error).toMatchObject({
      code: 'not_found',
    });
    expect((await query({ checkpointId: 42 })).error).toMatchObject({ code: 'invalid_payload' });
    // Rolled back to run 1, run 2's checkpoint is stale: no longer a diff to show.
    ok(await client.command('rollback.toRun', { threadId: t.threadId, runOrdinal: 1 }));
    expect((await checkpoints()).find((c) => c.id === second!.id)?.status).toBe('stale');
    expect((await query({ checkpointId: second!.id })).error).toMatchObject({ code: 'conflict' });
    expect((await query({ checkpointId: first!.id, baseCheckpointId: second!.id })).error).toMatchObject({
      code: 'conflict',
    });
  }, 120_000);
});
