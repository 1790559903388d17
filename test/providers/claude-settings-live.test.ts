import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type {
  MessagesRequest,
  MessagesTurn,
  ScriptedMessagesServer,
} from '../../src/providers/model/scripted-messages-server.js';
import { liveClaudeModel, useLiveClaude } from '../support/live-claude.js';
import type { Harness } from '../support/runtime.js';

/**
 * A Claude thread's settings reach the real agent on every turn (its permission mode and
 * rules, its model), live against the scripted Messages-API model: read-only refuses file
 * writes, workspace-write edits inside the cwd without asking, full access asks nothing,
 * and a settings update takes effect on the next run of the same agent session.
 */
const claude = useLiveClaude();
const { providers } = claude;
const MODEL = liveClaudeModel;

// Outside every workspace.
const outside = mkdtempSync('/var/tmp/baton-claude-settings-');
afterAll(() => rmSync(outside, { recursive: true, force: true }));

// The agent's one-token probe after a model switch is answered on the side, not from the script.
const setup = () => claude.setup({ model: { isSideRequest: (r) => r.body.max_tokens === 1 } });

const terminal = ['completed', 'failed', 'interrupted', 'cancelled'];
const runOf = (h: Harness, runId: string) => h.store.projections.get('runs', runId)!;
const requests = (h: Harness, threadId: string) => h.store.projections.list('requests', threadId);

async function ok(h: Harness, command: Record<string, unknown>): Promise<void> {
  const ack = await h.command(command);
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
}

const write = (path: string, content: string): MessagesTurn => ({
  kind: 'tool_use',
  name: 'Write',
  input: { file_path: path, content },
});
const bash = (command: string): MessagesTurn => ({ kind: 'tool_use', name: 'Bash', input: { command } });

/** One run whose model turn is `tool`, then says done; resolves when it ended (completed). */
async function runTool(h: Harness, model: ScriptedMessagesServer, threadId: string, tool: MessagesTurn) {
  model.enqueue(tool, { kind: 'text', text: 'done' });
  const runId = await h.send(threadId, 'use the tool');
  await h.until(() => terminal.includes(runOf(h, runId).status), 60_000);
  expect(runOf(h, runId).status).toBe('completed');
  return runId;
}

/** What the tool told the model, as the agent sent it on its next request. */
const lastToolResult = (model: ScriptedMessagesServer): string => {
  const blocks = model.messageRequests
    .at(-1)!
    .body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === 'tool_result');
  return JSON.stringify(blocks.at(-1)?.content ?? null);
};

/** The texts of the newest user message of a request (the agent's reminders included). */
const lastUserTexts = (request: MessagesRequest): string[] => {
  const last = request.body.messages.filter((m) => m.role === 'user').at(-1)!;
  return typeof last.content === 'string'
    ? [last.content]
    : last.content.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
};
const inPlanMode = (request: MessagesRequest) => lastUserTexts(request).some((t) => t.includes('Plan mode is active'));

describe('thread settings reach the Claude agent on every turn (live)', () => {
  it('read_only: the agent cannot Write (nothing asks, no file); a command still asks, and a declined one writes nothing', async () => {
    const { h, cwd, model } = await setup();
    const threadId = await h.thread({ threadId: 'thr_ro', cwd, runtimeMode: 'read_only' });
    await runTool(h, model, threadId, write(join(cwd, 'ro.txt'), 'no\n'));
    expect(existsSync(join(cwd, 'ro.txt'))).toBe(false);
    expect(lastToolResult(model)).toMatch(/denied/i);
    expect(requests(h, threadId)).toEqual([]);

    model.enqueue(bash('echo no > ro-bash.txt'), { kind: 'text', text: 'done' });
    const runId = await h.send(threadId, 'run it');
    await h.until(() => requests(h, threadId).some((r) => r.status === 'pending'), 60_000);
    const request = requests(h, threadId)[0]!;
    expect(request.kind).toBe('command');
    await ok(h, { type: 'runtime-request.respond', requestId: request.id, decision: 'decline' });
    await h.until(() => terminal.includes(runOf(h, runId).status), 60_000);
    expect(runOf(h, runId).status).toBe('completed');
    expect(existsSync(join(cwd, 'ro-bash.txt'))).toBe(false);
  }, 120_000);

  it('workspace_write: a Write inside the cwd happens with no approval; one outside it asks, and so does a command', async () => {
    const { h, cwd, model } = await setup();
    const threadId = await h.thread({ threadId: 'thr_ww', cwd, runtimeMode: 'workspace_write' });
    await runTool(h, model, threadId, write(join(cwd, 'ww.txt'), 'inside\n'));
    expect(readFileSync(join(cwd, 'ww.txt'), 'utf8')).toBe('inside\n');
    expect(requests(h, threadId)).toEqual([]);

    model.enqueue(write(join(outside, 'ww-out.txt'), 'outside\n'), { kind: 'text', text: 'done' });
    const runId = await h.send(threadId, 'write outside');
    await h.until(() => requests(h, threadId).some((r) => r.status === 'pending'), 60_000);
    const request = requests(h, threadId)[0]!;
    expect(request.kind).toBe('file_change');
    await ok(h, { type: 'runtime-request.respond', requestId: request.id, decision: 'decline' });
    await h.until(() => terminal.includes(runOf(h, runId).status), 60_000);
    expect(existsSync(join(outside, 'ww-out.txt'))).toBe(false);

    // The agent's acceptEdits alone would run a file-writing command in the cwd unasked: the ask rule keeps it an approval.
    model.enqueue(bash('echo yes > ww-bash.txt'), { kind: 'text', text: 'done' });
    const bashRun = await h.send(threadId, 'run it');
    await h.until(() => requests(h, threadId).some((r) => r.status === 'pending'), 60_000);
    const ask = requests(h, threadId).find((r) => r.status === 'pending')!;
    expect(ask.kind).toBe('command');
    await ok(h, { type: 'runtime-request.respond', requestId: ask.id, decision: 'accept' });
    await h.until(() => terminal.includes(runOf(h, bashRun).status), 60_000);
    expect(readFileSync(join(cwd, 'ww-bash.txt'), 'utf8')).toBe('yes\n');
  }, 120_000);

  it('full_access: a command that writes a file outside the cwd runs with no approval', async () => {
    const { h, cwd, model } = await setup();
    const threadId = await h.thread({ threadId: 'thr_fa', cwd, runtimeMode: 'full_access' });
    await runTool(h, model, threadId, bash(`echo full > ${outside}/fa.txt`));
    expect(readFileSync(join(outside, 'fa.txt'), 'utf8')).toBe('full\n');
    expect(requests(h, threadId)).toEqual([]);
  }, 120_000);

  it('a runtimeMode and model update applies to the next run of the same agent session, both ways', async () => {
    const { h, cwd, model } = await setup();
    const threadId = await h.thread({ threadId: 'thr_switch', cwd, runtimeMode: 'read_only' });
    const first = await runTool(h, model, threadId, write(join(cwd, 'one.txt'), 'one\n'));
    expect(existsSync(join(cwd, 'one.txt'))).toBe(false);
    expect(model.messageRequests.at(-1)!.body.model).toBe(MODEL);
    const pid = providers.at(-1)!.adapter(threadId).pid;
    expect(pid).toEqual(expect.any(Number));

    await ok(h, {
      type: 'thread.settings.update',
      threadId,
      runtimeMode: 'workspace_write',
      model: 'claude-haiku-4-5',
    });
    const before = model.messageRequests.length;
    const second = await runTool(h, model, threadId, write(join(cwd, 'two.txt'), 'two\n'));
    expect(readFileSync(join(cwd, 'two.txt'), 'utf8')).toBe('two\n');
    // The turn's first model request (and the one after the tool) names the new model.
    expect(model.messageRequests.slice(before).map((r) => r.body.model)).toEqual([
      'claude-haiku-4-5',
      'claude-haiku-4-5',
    ]);

    await ok(h, { type: 'thread.settings.update', threadId, runtimeMode: 'read_only', model: MODEL });
    await runTool(h, model, threadId, write(join(cwd, 'three.txt'), 'three\n'));
    expect(existsSync(join(cwd, 'three.txt'))).toBe(false);
    expect(model.messageRequests.at(-1)!.body.model).toBe(MODEL);

    // One agent process and one conversation throughout.
    expect(providers.at(-1)!.adapter(threadId).pid).toBe(pid);
    expect(runOf(h, second).providerThreadId).toBe(runOf(h, first).providerThreadId);
    expect(new Set(model.messageRequests.map((r) => r.headers['x-claude-code-session-id'])).size).toBe(1);
    expect(requests(h, threadId)).toEqual([]);
  }, 180_000);

  it('interactionMode plan puts the agent in plan mode for the next run, and default takes it out', async () => {
    const { h, cwd, model } = await setup();
    const threadId = await h.thread({ threadId: 'thr_plan', cwd });
    const say = async () => {
      model.enqueue({ kind: 'text', text: 'ok' });
      const runId = await h.send(threadId, 'think about it');
      await h.until(() => terminal.includes(runOf(h, runId).status), 60_000);
      expect(runOf(h, runId).status).toBe('completed');
      return model.messageRequests.at(-1)!;
    };
    expect(inPlanMode(await say())).toBe(false);
    await ok(h, { type: 'thread.settings.update', threadId, interactionMode: 'plan' });
    expect(inPlanMode(await say())).toBe(true);
    await ok(h, { type: 'thread.settings.update', threadId, interactionMode: 'default' });
    expect(inPlanMode(await say())).toBe(false);
  }, 180_000);
});
