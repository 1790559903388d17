import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatonClient } from '../../src/client/baton-client.js';
import { CheckpointId } from '../../src/domain/ids.js';
import { startScriptedModels } from '../support/scripted-models.js';
import { userTexts } from '../support/messages-request.js';
import { useApiBatons } from '../support/api-batons.js';
import { ok } from '../support/thread-client.js';

/**
 * A fork from a checkpoint through the public Socket.IO API: a Codex thread's run-1
 * checkpoint forked onto Claude. Claude's first request carries run 1 and nothing of run 2,
 * the fork's workspace is that checkpoint's files, and the fork's snapshot shows the
 * source's run 1 first, inherited. Real Baton, real agents, scripted models.
 */
const token = 'fork-sources-api-token-0123456789';
const api = useApiBatons({ token, prefix: 'baton-fork-src-api', agentComms: ['claude', 'codex'] });
const { workspace, onCleanup } = api;

interface Item {
  id: string;
  kind: string;
  text: string;
  runId: string | null;
  threadId: string;
  inherited?: boolean;
}
interface ThreadSnapshot {
  thread: { lineage: { forkedFrom: Record<string, unknown> | null } };
  turnItems: Item[];
  visibleTurnItems: Item[];
  checkpoints: { id: string; runId: string | null; status: string }[];
}

describe('forks from a checkpoint, through the Socket.IO API', () => {
  it("a Codex run's checkpoint forked onto Claude: Claude is told run 1 and not run 2; the snapshot starts with run 1, inherited", async () => {
    const { messages, responses, config } = await startScriptedModels(onCleanup);
    const app = await api.baton(config);
    const ws = workspace();
    writeFileSync(join(ws, 'a.txt'), 'before\n');
    const source = await api.create(app.url, { cwd: ws, provider: 'codex' });
    responses.enqueue({ kind: 'text', text: 'Noted: 42.' }, { kind: 'text', text: 'Noted: 7.' });
    const one = await source.send('remember the number 42');
    expect(await source.ended(one)).toBe('completed');
    writeFileSync(join(ws, 'a.txt'), 'after run 1\n'); // captured by run 2's checkpoint, not run 1's
    const two = await source.send('now remember the number 7');
    expect(await source.ended(two)).toBe('completed');

    const client = await BatonClient.connect(app.url, token);
    onCleanup(() => client.close());
    const sourceSnap = (await source.snapshot()) as unknown as ThreadSnapshot;
    const checkpoint = sourceSnap.checkpoints.find((c) => c.runId === one)!;
    expect(checkpoint.status).toBe('ready');
    const forked = ok<{ threadId: string; cwd: string; forkedFrom: unknown }>(
      await client.command('thread.fork', {
        sourceThreadId: source.threadId,
        source: { type: 'checkpoint', threadId: source.threadId, checkpointId: CheckpointId.parse(checkpoint.id) },
        provider: 'claude',
      }),
    );
    expect(forked.forkedFrom).toEqual({ threadId: source.threadId, runId: one, runOrdinal: 1 });
    const fork = await api.open(app.url, forked.threadId);
    messages.enqueue({ kind: 'text', text: 'The number was 42.' });
    const forkRun = await fork.send('what was the number?');
    expect(await fork.ended(forkRun)).toBe('completed');

    const told = userTexts(messages.messageRequests.at(-1)!).join('\n');
    expect(told).toContain('remember the number 42');
    expect(told).toContain('Noted: 42.');
    expect(told).not.toContain('number 7');
    expect(told).not.toContain('Noted: 7.');
    expect(fork.events.find((e) => e.type === 'thread.fork-resolved')?.payload).toMatchObject({
      strategy: 'portable_context',
    });
    // The fork's workspace is run 1's checkpoint.
    expect(readdirSync(forked.cwd)).toEqual(['a.txt']);
    expect(readFileSync(join(forked.cwd, 'a.txt'), 'utf8')).toBe('before\n');

    const snap = (await fork.snapshot()) as unknown as ThreadSnapshot;
    expect(snap.thread.lineage.forkedFrom).toMatchObject({ runId: one, checkpointId: checkpoint.id });
    const inherited = snap.visibleTurnItems.filter((i) => i.inherited === true);
    expect(snap.visibleTurnItems.slice(0, inherited.length)).toEqual(inherited);
    expect(inherited.every((i) => i.threadId === source.threadId && (i.runId === null || i.runId === one))).toBe(true);
    const said = (items: Item[]) =>
      items.filter((i) => i.kind === 'user_message' || i.kind === 'assistant_message').map((i) => i.text);
    expect(said(inherited)).toEqual(['remember the number 42', 'Noted: 42.']);
    expect(said(snap.visibleTurnItems.slice(inherited.length))).toEqual(['what was the number?', 'The number was 42.']);
    // `turnItems` stays the fork's own.
    expect(snap.turnItems.every((i) => i.threadId === forked.threadId && i.inherited === undefined)).toBe(true);
  }, 120_000);
});
