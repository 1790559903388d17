import { describe, expect, it } from 'vitest';
import { BatonClient } from '../../src/client/baton-client.js';
import { RunId, ThreadId } from '../../src/domain/ids.js';
import { responsesUserTexts, startScriptedModels } from '../support/scripted-models.js';
import { useApiBatons } from '../support/api-batons.js';
import { ok, type ThreadClient } from '../support/thread-client.js';

/**
 * Merge-back through the public Socket.IO API: a fork's own work is told to its parent's
 * next run (`thread.merge_back`, or `thread.message.send { mergeBackFromThreadId }`), as a
 * handoff the user can read, recorded as a merge_back transfer. Real Baton, real agents,
 * scripted models.
 */
const token = 'merge-api-test-token-0123456789';
const api = useApiBatons({ token, prefix: 'baton-merge-api', agentComms: ['node', 'claude', 'codex'] });
const { workspace, onCleanup } = api;

async function setup() {
  const models = await startScriptedModels(onCleanup);
  const app = await api.baton(models.config);
  const client = await BatonClient.connect(app.url, token);
  onCleanup(() => client.close());
  return { ...models, url: app.url, client };
}

async function completes(t: ThreadClient, text: string, fields: Record<string, unknown> = {}): Promise<RunId> {
  const { runId } = ok<{ runId: string }>(
    await t.client.command('thread.message.send', { threadId: t.threadId, text, ...fields }),
  );
  expect(await t.ended(RunId.parse(runId))).toBe('completed');
  return RunId.parse(runId);
}

/** A Codex source thread with one run, and a fork of it (onto `provider`) with one run of its own. */
async function sourceAndFork(
  s: Awaited<ReturnType<typeof setup>>,
  provider: 'codex' | 'claude',
): Promise<{ source: ThreadClient; fork: ThreadClient }> {
  const source = await api.create(s.url, { cwd: workspace(), provider: 'codex' });
  s.responses.enqueue({ kind: 'text', text: 'Source noted.' });
  const one = await completes(source, 'we need a colour for the logo');
  const forked = ok<{ threadId: string }>(
    await s.client.command('thread.fork', {
      sourceThreadId: source.threadId,
      source: { type: 'run', threadId: source.threadId, runId: one },
      ...(provider === 'claude' ? { provider } : {}),
    }),
  );
  const fork = await api.open(s.url, forked.threadId);
  if (provider === 'claude') s.messages.enqueue({ kind: 'text', text: 'Fork decided: blue.' });
  else s.responses.enqueue({ kind: 'text', text: 'Fork decided: blue.' });
  await completes(fork, 'try blue in the fork');
  return { source, fork };
}

describe('merge-back through the Socket.IO API', () => {
  it("thread.merge_back: the parent's next request carries the fork's work, as a recorded handoff", async () => {
    const s = await setup();
    const { source, fork } = await sourceAndFork(s, 'codex');
    const merged = ok<{ transferId: string; throughRunOrdinal: number }>(
      await s.client.command('thread.merge_back', { threadId: source.threadId, fromThreadId: fork.threadId }),
    );
    expect(merged.throughRunOrdinal).toBe(1);
    s.responses.enqueue({ kind: 'text', text: 'Blue it is.' });
    const next = await completes(source, 'what did the fork decide?');
    const last = responsesUserTexts(s.responses.requests.at(-1)!).at(-1)!;
    expect(last).toContain('try blue in the fork');
    expect(last).toContain('Fork decided: blue.');
    expect(last).toContain('what did the fork decide?');
    const seed = source.events.find((e) => e.type === 'context.seeded')!.payload;
    expect(seed).toMatchObject({ runId: next, fromThreadId: fork.threadId, transferId: merged.transferId });
    const transfer = source.events.find((e) => e.type === 'context-transfer.recorded')!.payload.transfer;
    expect(transfer).toMatchObject({ kind: 'merge_back', sourcePoint: { threadId: fork.threadId, runOrdinal: 1 } });
    expect(transfer.basePoint).toMatchObject({ runOrdinal: 1 });
    await source.next(
      (e) => (e.type === 'context-transfer.status-changed' && e.payload.to === 'consumed' ? e : undefined),
      'the transfer consumed',
    );
  }, 180_000);

  it('thread.message.send { mergeBackFromThreadId } from a fork on Claude: the same in one command', async () => {
    const s = await setup();
    const { source, fork } = await sourceAndFork(s, 'claude');
    s.responses.enqueue({ kind: 'text', text: 'Blue it is.' });
    await completes(source, 'what did the fork decide?', { mergeBackFromThreadId: fork.threadId });
    const last = responsesUserTexts(s.responses.requests.at(-1)!).at(-1)!;
    expect(last).toContain('Fork decided: blue.');
    expect(last).toContain('merged back into this thread');
  }, 180_000);

  it('a rollback before the next run takes back a merge-back not yet told', async () => {
    const s = await setup();
    const { source, fork } = await sourceAndFork(s, 'codex');
    const merged = ok<{ transferId: string }>(
      await s.client.command('thread.merge_back', { threadId: source.threadId, fromThreadId: fork.threadId }),
    );
    ok(await s.client.command('rollback.toRun', { threadId: source.threadId, runOrdinal: 1 }));
    const superseded = await source.next(
      (e) =>
        e.type === 'context-transfer.status-changed' && e.payload.transferId === merged.transferId
          ? e.payload
          : undefined,
      'the merge-back superseded',
    );
    expect(superseded).toMatchObject({ to: 'superseded', reason: 'rolled back to run 1' });
    s.responses.enqueue({ kind: 'text', text: 'No fork news.' });
    await completes(source, 'anything new?');
    expect(responsesUserTexts(s.responses.requests.at(-1)!).join('\n')).not.toContain('Fork decided: blue.');
  }, 180_000);

  it('refusals: a thread that is not a fork, a fork with a run going; nothing changes', async () => {
    const s = await setup();
    const { source, fork } = await sourceAndFork(s, 'codex');
    const other = await api.create(s.url, { cwd: workspace(), provider: 'codex' });
    const code = async (fields: { threadId: ThreadId; fromThreadId: ThreadId; files?: boolean }) => {
      const ack = await s.client.command('thread.merge_back', fields);
      return ack.ok ? 'accepted' : ack.error.code;
    };
    expect(await code({ threadId: source.threadId, fromThreadId: other.threadId })).toBe('invalid_command');
    expect(await code({ threadId: other.threadId, fromThreadId: fork.threadId })).toBe('invalid_command');
    expect(await code({ threadId: source.threadId, fromThreadId: ThreadId.parse('thr_nope') })).toBe('not_found');
    s.responses.enqueue({ kind: 'hang' });
    const { runId } = ok<{ runId: string }>(
      await fork.client.command('thread.message.send', { threadId: fork.threadId, text: 'a long one' }),
    );
    await s.responses.waitForRequests(s.responses.requests.length + 1);
    expect(await code({ threadId: source.threadId, fromThreadId: fork.threadId })).toBe('invalid_transition');
    expect(source.events.filter((e) => e.type === 'context-transfer.recorded')).toEqual([]);
    ok(await fork.client.command('run.interrupt', { runId: RunId.parse(runId) }));
    await fork.ended(RunId.parse(runId));
  }, 180_000);
});
