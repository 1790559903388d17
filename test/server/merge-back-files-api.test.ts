import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatonClient } from '../../src/client/baton-client.js';
import { ThreadId } from '../../src/domain/ids.js';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import { useApiBatons } from '../support/api-batons.js';
import { ok, type ThreadClient } from '../support/thread-client.js';

/**
 * `thread.merge_back { files: true }` through the public Socket.IO API, with the real Codex:
 * what the fork's agent wrote in its own workspace is applied three-way to its source's
 * workspace as a checkpointed step, which a rollback to the source's last run undoes; a
 * conflict changes nothing. Real Baton, real agents, scripted model.
 */
const token = 'merge-files-api-token-0123456789';
const api = useApiBatons({ token, prefix: 'baton-merge-files-api', agentComms: ['codex'] });
const { workspace, onCleanup } = api;

const lines = (...changes: [number, string][]) => {
  const l = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
  for (const [i, text] of changes) l[i - 1] = text;
  return `${l.join('\n')}\n`;
};
/** A shell command that puts `text` on line `n` of a.txt. */
const setLine = (n: number, text: string) => `sed -i '${n}s/.*/${text}/' a.txt`;

/**
 * A Codex source whose run 1 writes one.txt, forked there; the fork's agent writes fork.txt
 * and changes line `forkLine` of a.txt; the source's run 2 changes line `sourceLine`.
 */
async function sourceAndFork(sourceLine: number, forkLine: number) {
  const responses = await new ScriptedModelServer().start();
  onCleanup(() => responses.stop());
  const app = await api.baton({ codexBaseUrl: responses.baseUrl });
  const ws = workspace();
  writeFileSync(join(ws, 'a.txt'), lines());
  const source = await api.create(app.url, { cwd: ws, provider: 'codex' });
  const runs = async (t: ThreadClient, command: string) => {
    responses.enqueue({ kind: 'exec', command }, { kind: 'text', text: 'done' });
    const runId = await t.send(`run: ${command}`);
    expect(await t.ended(runId)).toBe('completed');
    return runId;
  };
  const first = await runs(source, 'echo one > one.txt');
  const client = await BatonClient.connect(app.url, token);
  onCleanup(() => client.close());
  const forked = ok<{ threadId: string; cwd: string }>(
    await client.command('thread.fork', {
      sourceThreadId: source.threadId,
      source: { type: 'run', threadId: source.threadId, runId: first },
    }),
  );
  // The fork's agent works in the fork's own folder: checked for leftovers as the source's is.
  api.watchWorkspace(forked.cwd);
  const fork = await api.open(app.url, forked.threadId);
  await runs(fork, `echo fork > fork.txt && ${setLine(forkLine, 'fork')}`);
  await runs(source, setLine(sourceLine, 'source'));
  expect(readFileSync(join(forked.cwd, 'a.txt'), 'utf8')).toBe(lines([forkLine, 'fork']));
  const mergeFiles = () =>
    client.command('thread.merge_back', {
      threadId: source.threadId,
      fromThreadId: ThreadId.parse(forked.threadId),
      files: true,
    });
  return { ws, source, fork, client, mergeFiles };
}

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

describe('merge-back with files, through the Socket.IO API (the real Codex)', () => {
  it("the fork's file appears in the source's workspace as a checkpoint; a rollback to the source's last run removes it", async () => {
    const { ws, source, client, mergeFiles } = await sourceAndFork(2, 8);
    const merged = ok<{ changedPaths: string[]; checkpointId: string; transferId: string }>(await mergeFiles());
    expect(merged.changedPaths.sort()).toEqual(['a.txt', 'fork.txt']);
    expect(read(ws, 'fork.txt')).toBe('fork\n');
    expect(read(ws, 'a.txt')).toBe(lines([2, 'source'], [8, 'fork']));
    const recorded = await source.next(
      (e) => (e.type === 'checkpoint.recorded' && e.payload.checkpoint.id === merged.checkpointId ? e : undefined),
      "the merge's checkpoint",
    );
    expect(recorded.payload.checkpoint).toMatchObject({ scopeKind: 'manual', runOrdinal: 3, status: 'ready' });

    const rolled = ok<{ changedPaths: string[] }>(
      await client.command('rollback.toRun', { threadId: source.threadId, runOrdinal: 2 }),
    );
    expect(rolled.changedPaths.sort()).toEqual(['a.txt', 'fork.txt']);
    expect(existsSync(join(ws, 'fork.txt'))).toBe(false);
    expect(readdirSync(ws).sort()).toEqual(['a.txt', 'one.txt']);
    expect(read(ws, 'a.txt')).toBe(lines([2, 'source']));
  }, 180_000);

  it('a conflict (the same line changed in both) is refused with the file, and changes nothing', async () => {
    const { ws, source, mergeFiles } = await sourceAndFork(5, 5);
    const ack = await mergeFiles();
    expect(ack).toMatchObject({ ok: false, error: { code: 'conflict', details: { paths: ['a.txt'] } } });
    expect(readdirSync(ws).sort()).toEqual(['a.txt', 'one.txt']);
    expect(read(ws, 'a.txt')).toBe(lines([5, 'source']));
    expect(source.events.filter((e) => e.type === 'context-transfer.recorded')).toEqual([]);
    const scopes = source.events.flatMap((e) =>
      e.type === 'checkpoint.recorded' ? [e.payload.checkpoint.scopeKind] : [],
    );
    expect(scopes).not.toContain('manual');
  }, 180_000);
});
