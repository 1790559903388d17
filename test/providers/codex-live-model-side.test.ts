import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useLiveCodex } from '../support/live-codex.js';
import type { Harness } from '../support/runtime.js';

const { model, providers, open, workspace } = useLiveCodex();

async function thread(h: Harness): Promise<{ threadId: string; ws: string }> {
  const ws = { dir: workspace() };
  return { threadId: await h.thread({ cwd: ws.dir }), ws: ws.dir };
}

async function send(
  h: Harness,
  threadId: string,
  text: string,
  dispatchMode?: string,
): Promise<{ runId: string; dispatched: string }> {
  const ack = (await h.command({
    type: 'thread.message.send',
    threadId,
    text,
    ...(dispatchMode ? { dispatchMode } : {}),
  })) as { ok: boolean; result: { runId: string; dispatched: string } };
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
  return ack.result;
}

const run = (h: Harness, runId: string) => h.store.projections.get('runs', runId)!;

/** What the shared scenarios cannot see in a replay: the model's side of crash recovery and rollback, and the reaper. */
describe("Codex, live: crashes and rollback, from the model's side", () => {
  it('provider_crash_recovery: SIGKILL mid-turn fails the run; the next message resumes the Codex thread and succeeds', async () => {
    const h = open();
    const { threadId } = await thread(h);
    model.enqueue({ kind: 'text', text: 'Before the crash.' }, { kind: 'hang' });
    const one = await send(h, threadId, 'first');
    await h.until(() => run(h, one.runId).status === 'completed');
    const two = await send(h, threadId, 'second');
    await h.until(() => run(h, two.runId).status === 'running');
    await model.waitForRequests(2);
    const pid = providers[0]!.adapter(threadId).pid!;
    process.kill(pid, 'SIGKILL');
    await h.until(() => run(h, two.runId).status === 'failed');
    expect(h.store.projections.list('sessions', threadId).some((s) => s.status === 'error')).toBe(true);

    model.enqueue({ kind: 'text', text: 'Back again.' });
    const three = await send(h, threadId, 'third');
    await h.until(() => run(h, three.runId).status === 'completed');
    // Resumed, not restarted: the model saw the conversation from before the crash.
    expect(JSON.stringify(model.requests.at(-1)!.body.input)).toContain('Before the crash.');
    expect(run(h, three.runId).ordinal).toBe(3);
  }, 60_000);

  it('thread_rollback: files are restored and thread/revert is carried out', async () => {
    const h = open();
    const { threadId, ws } = await thread(h);
    const file = join(ws, 'story.txt');
    model.enqueue({ kind: 'text', text: 'one' }, { kind: 'text', text: 'two' });
    const one = await send(h, threadId, 'rollback-first-a1');
    await h.until(() => run(h, one.runId).status === 'running');
    writeFileSync(file, 'version 1\n');
    await h.until(() => run(h, one.runId).status === 'completed');
    const two = await send(h, threadId, 'rollback-second-b2');
    await h.until(() => run(h, two.runId).status === 'running');
    writeFileSync(file, 'version 2\n');
    await h.until(() => run(h, two.runId).status === 'completed');

    expect(await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).toMatchObject({ ok: true });
    await h.until(() =>
      h.store.outbox
        .list({ threadId })
        .filter((e) => e.kind === 'provider.thread.rollback')
        .every((e) => e.status === 'completed'),
    );
    expect(readFileSync(file, 'utf8')).toBe('version 1\n');
    expect(run(h, two.runId).status).toBe('rolled_back');
    model.enqueue({ kind: 'text', text: 'after rollback' });
    const three = await send(h, threadId, 'rollback-third-c3');
    await h.until(() => run(h, three.runId).status === 'completed');
    // Codex's history no longer holds run 2.
    const input = JSON.stringify(model.requests.at(-1)!.body.input);
    expect(input).toContain('rollback-first-a1');
    expect(input).not.toContain('rollback-second-b2');
  }, 60_000);
});

describe('Codex, live: the session manager', () => {
  it('the idle reaper releases the Codex process; the next message resumes the thread through the recovery path', async () => {
    const h = open();
    const { threadId } = await thread(h);
    model.enqueue({ kind: 'text', text: 'Remember: blue.' }, { kind: 'text', text: 'It was blue.' });
    const one = await send(h, threadId, 'remember blue');
    await h.until(() => run(h, one.runId).status === 'completed');
    const provider = providers[0]!;
    const firstPid = provider.adapter(threadId).pid;
    expect(provider.reapIdle()).toBe(1);
    await h.until(() => h.store.projections.list('sessions', threadId).some((s) => s.status === 'stopped'));
    expect(provider.adapter(threadId).running).toBe(false);
    const two = await send(h, threadId, 'what colour?');
    await h.until(() => run(h, two.runId).status === 'completed');
    expect(provider.adapter(threadId).pid).not.toBe(firstPid);
    expect(JSON.stringify(model.requests.at(-1)!.body.input)).toContain('Remember: blue.');
  }, 60_000);
});
