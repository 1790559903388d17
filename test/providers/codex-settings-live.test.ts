import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { useLiveCodex } from '../support/live-codex.js';
import type { Harness } from '../support/runtime.js';

/**
 * Live against the real `codex app-server` and the scripted model: a thread's settings
 * reach Codex on every turn. Measured on this machine first: Codex's Linux sandbox works
 * here (a read-only turn's `echo > file` fails with "Read-only file system"), a turn that
 * sends no policy runs read-only, and a policy sent on one turn sticks to the turns after.
 */
const { model, providers, open, workspace } = useLiveCodex();

// Outside every workspace and outside /tmp (which Codex's workspace-write sandbox keeps writable).
const outside = mkdtempSync('/var/tmp/baton-settings-outside-');
afterAll(() => rmSync(outside, { recursive: true, force: true }));

const terminal = ['completed', 'failed', 'interrupted', 'cancelled'];
const runOf = (h: Harness, runId: string) => h.store.projections.get('runs', runId)!;

async function ok(h: Harness, command: Record<string, unknown>): Promise<Record<string, unknown>> {
  const ack = (await h.command(command)) as { ok: boolean; result: Record<string, unknown> };
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
  return ack.result;
}

/** One run whose model turn runs `command` through exec_command, then says done; resolves when the run ended. */
async function runCommand(
  h: Harness,
  threadId: string,
  command: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  model.enqueue({ kind: 'exec', command }, { kind: 'text', text: 'done' });
  const { runId } = (await ok(h, { type: 'thread.message.send', threadId, text: `run: ${command}`, ...extra })) as {
    runId: string;
  };
  await h.until(() => terminal.includes(runOf(h, runId).status), 60_000);
  expect(runOf(h, runId).status).toBe('completed');
  return runId;
}

/** What the command's tool call told the model, as Codex sent it on its next request. */
const lastToolOutput = (): string => {
  const input = (model.requests.at(-1)!.body.input ?? []) as { type?: string; output?: unknown }[];
  return JSON.stringify(input.filter((i) => i.type === 'function_call_output').at(-1)?.output ?? null);
};
const noRequests = (h: Harness, threadId: string) => expect(h.store.projections.list('requests', threadId)).toEqual([]);

describe('thread settings reach Codex on every turn (live)', () => {
  it('workspace_write: a command writes inside the thread cwd with no approval, and cannot write outside it', async () => {
    const h = open();
    const cwd = workspace();
    const threadId = await h.thread({ cwd, runtimeMode: 'workspace_write' });
    await runCommand(h, threadId, 'echo one > one.txt');
    expect(readFileSync(join(cwd, 'one.txt'), 'utf8')).toBe('one\n');
    await runCommand(h, threadId, `echo out > ${outside}/ww.txt`);
    expect(existsSync(join(outside, 'ww.txt'))).toBe(false);
    expect(lastToolOutput()).toContain('Read-only file system');
    noRequests(h, threadId);
  }, 120_000);

  it('read_only: the same command cannot write in the cwd (the sandbox refuses it) and nothing asks for approval', async () => {
    const h = open();
    const cwd = workspace();
    const threadId = await h.thread({ cwd, runtimeMode: 'read_only' });
    await runCommand(h, threadId, 'echo one > one.txt');
    expect(existsSync(join(cwd, 'one.txt'))).toBe(false);
    expect(lastToolOutput()).toContain('Read-only file system');
    noRequests(h, threadId);
  }, 120_000);

  it('thread.settings.update runtimeMode applies to the next run of the same provider thread, both ways', async () => {
    const h = open();
    const cwd = workspace();
    const threadId = await h.thread({ cwd, runtimeMode: 'read_only' });
    const first = await runCommand(h, threadId, 'echo one > one.txt');
    expect(existsSync(join(cwd, 'one.txt'))).toBe(false);

    await ok(h, { type: 'thread.settings.update', threadId, runtimeMode: 'workspace_write' });
    const second = await runCommand(h, threadId, 'echo two > two.txt');
    expect(readFileSync(join(cwd, 'two.txt'), 'utf8')).toBe('two\n');

    // Back to read_only: Codex keeps the last turn's sandbox unless told, so this shows it is told.
    await ok(h, { type: 'thread.settings.update', threadId, runtimeMode: 'read_only' });
    await runCommand(h, threadId, 'echo three > three.txt');
    expect(existsSync(join(cwd, 'three.txt'))).toBe(false);

    expect(runOf(h, second).providerThreadId).toBe(runOf(h, first).providerThreadId);
    // One Codex conversation throughout (Codex keys its prompt cache by its thread id).
    const conversations = new Set(model.requests.map((r) => r.body.prompt_cache_key));
    expect([...conversations]).toHaveLength(1);
    expect([...conversations][0]).toEqual(expect.any(String));
    noRequests(h, threadId);
  }, 180_000);

  it('full_access: a command writes outside the thread cwd, with no approval', async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace(), runtimeMode: 'full_access' });
    await runCommand(h, threadId, `echo full > ${outside}/fa.txt`);
    expect(readFileSync(join(outside, 'fa.txt'), 'utf8')).toBe('full\n');
    noRequests(h, threadId);
  }, 120_000);

  it('interactionMode: plan lets Codex ask questions on the existing thread after the update; back to default it cannot', async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const questions = {
      kind: 'questions' as const,
      questions: [
        {
          id: 'lang',
          header: 'Language',
          question: 'Which language?',
          options: [
            { label: 'TypeScript', description: 'typed' },
            { label: 'Rust', description: 'fast' },
          ],
        },
      ],
    };
    const ask = async () => {
      model.enqueue(questions, { kind: 'text', text: 'ok' });
      const { runId } = (await ok(h, { type: 'thread.message.send', threadId, text: 'ask me' })) as { runId: string };
      await h.until(
        () =>
          terminal.includes(runOf(h, runId).status) ||
          h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'),
        60_000,
      );
      const pending = h.store.projections.list('requests', threadId).find((r) => r.status === 'pending');
      if (pending) await ok(h, { type: 'runtime-request.respond', requestId: pending.id, answers: { lang: 'Rust' } });
      await h.until(() => terminal.includes(runOf(h, runId).status), 60_000);
      expect(runOf(h, runId).status).toBe('completed');
      return { asked: !!pending, toolOutput: lastToolOutput() };
    };
    const before = await ask();
    expect(before.asked).toBe(false);
    await ok(h, { type: 'thread.settings.update', threadId, interactionMode: 'plan' });
    expect((await ask()).asked).toBe(true);
    await ok(h, { type: 'thread.settings.update', threadId, interactionMode: 'default' });
    const after = await ask();
    expect(after.asked).toBe(false);
    expect(after.toolOutput).toBe(before.toolOutput);
  }, 180_000);

  it("a model change reaches the next model request of a resumed thread; a message's model is for its run only", async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const say = async (text: string, extra: Record<string, unknown> = {}) => {
      model.enqueue({ kind: 'text', text: 'ok' });
      const { runId } = (await ok(h, { type: 'thread.message.send', threadId, text, ...extra })) as { runId: string };
      await h.until(() => terminal.includes(runOf(h, runId).status), 60_000);
      expect(runOf(h, runId).status).toBe('completed');
      return model.requests.at(-1)!.body;
    };
    expect((await say('first')).model).toBe('gpt-5.1-codex');

    await ok(h, { type: 'thread.settings.update', threadId, model: 'baton-other-model' });
    // The session goes away while idle: the next run starts a new one and resumes the Codex thread.
    expect(providers.at(-1)!.reapIdle()).toBe(1);
    await h.until(() => !providers.at(-1)!.adapter(threadId).running);
    const second = await say('second');
    expect(second.model).toBe('baton-other-model');
    expect(JSON.stringify(second.input)).toContain('first');

    expect((await say('third', { model: 'baton-run-model' })).model).toBe('baton-run-model');
    expect((await say('fourth')).model).toBe('baton-other-model');
  }, 180_000);
});
