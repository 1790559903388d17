import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedMessagesServer, type MessagesTurn } from '../../src/providers/model/scripted-messages-server.js';
import { userTexts } from '../support/messages-request.js';
import { processesIn } from '../support/processes.js';
import { useApiBatons } from '../support/api-batons.js';
import { echoedCall, echoServers } from '../support/mcp-echo.js';
import { until } from '../support/poll.js';
import type { ServeProcess } from '../support/serve-process.js';
import { assistantTexts, ok, type ThreadClient } from '../support/thread-client.js';

/**
 * The public Socket.IO API with `provider: "claude"`: the real Claude agent behind a real
 * Baton (in this process, or `baton serve` as a child process that is SIGKILLed), its model
 * Baton's scripted Messages-API server in this process (given as `BATON_CLAUDE_BASE_URL`), so
 * each test scripts the model's turns and reads what the agent asked it.
 */
const token = 'claude-api-test-token-0123456789';
const api = useApiBatons({ token, prefix: 'baton-claude-api', agentComms: ['claude'] });
const { folders, workspace, onCleanup } = api;

async function scriptedModel(): Promise<ScriptedMessagesServer> {
  // The agent's one-token probes are answered on the side, not from the script.
  const model = await new ScriptedMessagesServer(undefined, { isSideRequest: (r) => r.body.max_tokens === 1 }).start();
  onCleanup(() => model.stop());
  return model;
}

/** A Baton in this process whose Claude agent talks to `model`. */
const batonWith = (model: ScriptedMessagesServer): Promise<{ url: string }> =>
  api.baton({ claudeBaseUrl: model.baseUrl });

/** `baton serve` as a child process whose Claude agent talks to `model`; resolves once it listens. */
const serveWith = (model: ScriptedMessagesServer, dataDir: string): Promise<ServeProcess> =>
  api.serve(dataDir, { BATON_CLAUDE_BASE_URL: model.baseUrl });

const claudeThread = (url: string, cwd: string, extra: Record<string, unknown> = {}): Promise<ThreadClient> =>
  api.create(url, { cwd, provider: 'claude', ...extra });

const bash = (command: string): MessagesTurn => ({ kind: 'tool_use', name: 'Bash', input: { command } });
const write = (path: string, content: string): MessagesTurn => ({
  kind: 'tool_use',
  name: 'Write',
  input: { file_path: path, content },
});
const text = (t: string): MessagesTurn => ({ kind: 'text', text: t });

describe('Socket.IO API with provider "claude" (the real Claude agent)', () => {
  it('an approval lets a command write a file in the workspace', async () => {
    const model = await scriptedModel();
    const app = await batonWith(model);
    const cwd = workspace();
    const t = await claudeThread(app.url, cwd);
    model.enqueue(bash('echo approved > proof.txt'), text('Written.'));
    const runId = await t.send('write the proof');
    const request = await t.approval(runId);
    expect(request.kind).toBe('command');
    expect(existsSync(join(cwd, 'proof.txt'))).toBe(false);
    await t.respond(request.id, 'accept');
    expect(await t.ended(runId)).toBe('completed');
    expect(readFileSync(join(cwd, 'proof.txt'), 'utf8')).toBe('approved\n');
    expect(assistantTexts(await t.snapshot())).toEqual(['Written.']);
  }, 90_000);

  it('a declined approval leaves no file', async () => {
    const model = await scriptedModel();
    const app = await batonWith(model);
    const cwd = workspace();
    const t = await claudeThread(app.url, cwd);
    model.enqueue(bash('echo nope > declined.txt'), text('Understood, not written.'));
    const runId = await t.send('write it, maybe');
    const request = await t.approval(runId);
    await t.respond(request.id, 'decline');
    expect(await t.ended(runId)).toBe('completed');
    expect(existsSync(join(cwd, 'declined.txt'))).toBe(false);
    // The model was told the command was refused.
    expect(JSON.stringify(model.messageRequests.at(-1)!.body.messages.at(-1))).toContain('declined');
  }, 90_000);

  it('an interrupt ends the run interrupted, and the thread answers after it', async () => {
    const model = await scriptedModel();
    const app = await batonWith(model);
    const t = await claudeThread(app.url, workspace());
    model.enqueue({ kind: 'hang', text: 'Thinking' }, text('Still here.'));
    const runId = await t.send('take your time');
    await model.waitForRequests(1);
    ok(await t.client.command('run.interrupt', { runId }));
    expect(await t.ended(runId)).toBe('interrupted');
    const next = await t.send('are you there?');
    expect(await t.ended(next)).toBe('completed');
    expect(assistantTexts(await t.snapshot()).at(-1)).toBe('Still here.');
  }, 90_000);

  it('after a Baton SIGKILL mid-run, the next message resumes the same conversation', async () => {
    const model = await scriptedModel();
    const dataDir = folders.make('baton-claude-api-kill-');
    const cwd = workspace();
    const first = await serveWith(model, dataDir);
    let t = await claudeThread(first.url, cwd);
    const threadId = t.threadId;
    // Run 2's model request never ends: Baton dies while it streams. Its agent dies with it
    // (spawned with a parent-death signal); without that it stayed alive 20 s and more.
    model.enqueue(text('Noted: 42.'), { kind: 'hang', text: 'Let me think' }, text('It was 42.'));
    const one = await t.send('remember 42');
    expect(await t.ended(one)).toBe('completed');
    const mark = t.events.length;
    const two = await t.send('think hard');
    await t.next((e) => (e.type === 'message.delta' && t.events.indexOf(e) >= mark ? e : undefined), 'run 2 to stream');
    expect(processesIn(['claude'], cwd)).toHaveLength(1);
    t.client.close();
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    await until(() => processesIn(['claude'], cwd).length === 0, "the killed Baton's agent to die with it", 5_000);

    const second = await serveWith(model, dataDir);
    t = await api.open(second.url, threadId);
    const three = await t.send('what was the number?');
    expect(await t.ended(three)).toBe('completed');
    const last = model.messageRequests.at(-1)!;
    expect(userTexts(last)).toEqual(expect.arrayContaining(['remember 42', 'what was the number?']));
    expect(last.headers['x-claude-code-session-id']).toBe(
      model.messageRequests[0]!.headers['x-claude-code-session-id'],
    );
    const runs = (await t.snapshot()).runs;
    expect(['failed', 'interrupted']).toContain(runs.find((r) => r.id === two)!.status);
    expect(assistantTexts(await t.snapshot()).at(-1)).toBe('It was 42.');
    t.client.close();
    const stopped = new Promise((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    await stopped;
  }, 180_000);

  it('a rollback restores the files and the next model request no longer carries the rolled-back turn', async () => {
    const model = await scriptedModel();
    const app = await batonWith(model);
    const cwd = workspace();
    const t = await claudeThread(app.url, cwd);
    model.enqueue(write(join(cwd, 'one.txt'), 'one\n'), text('Wrote one.'));
    model.enqueue(write(join(cwd, 'two.txt'), 'two\n'), text('Wrote two.'));
    model.enqueue(text('After the rollback.'));
    const one = await t.send('write one');
    expect(await t.ended(one)).toBe('completed');
    const two = await t.send('write two');
    expect(await t.ended(two)).toBe('completed');
    expect(existsSync(join(cwd, 'two.txt'))).toBe(true);

    ok(await t.client.command('rollback.toRun', { threadId: t.threadId, runOrdinal: 1 }));
    await t.next((e) => (e.type === 'thread.rolled-back' ? e : undefined), 'the rollback');
    expect(readFileSync(join(cwd, 'one.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(cwd, 'two.txt'))).toBe(false);

    const three = await t.send('what is there now?');
    expect(await t.ended(three)).toBe('completed');
    const texts = userTexts(model.messageRequests.at(-1)!);
    expect(texts).toContain('write one');
    expect(texts).toContain('what is there now?');
    expect(texts).not.toContain('write two');
    const snap = await t.snapshot();
    expect(snap.runs.find((r) => r.id === two)!.status).toBe('rolled_back');
  }, 120_000);

  it('a fork answers from the source conversation and leaves the source untouched', async () => {
    const model = await scriptedModel();
    const app = await batonWith(model);
    const cwd = workspace();
    const source = await claudeThread(app.url, cwd);
    model.enqueue(text('Source answer.'), text('Fork answer.'), text('Source again.'));
    const runId = await source.send('remember the number 42');
    expect(await source.ended(runId)).toBe('completed');
    const { threadId: forkId } = ok<{ threadId: string }>(
      await source.client.command('thread.fork', {
        sourceThreadId: source.threadId,
        source: { type: 'run', threadId: source.threadId, runId },
      }),
    );
    const fork = await api.open(app.url, forkId);
    const forkRun = await fork.send('what was the number?');
    expect(await fork.ended(forkRun)).toBe('completed');
    expect(assistantTexts(await fork.snapshot()).at(-1)).toBe('Fork answer.');
    expect(userTexts(model.messageRequests.at(-1)!)).toEqual(['remember the number 42', 'what was the number?']);
    const forkSession = model.messageRequests.at(-1)!.headers['x-claude-code-session-id'];

    // The source goes on as it was: its own session, without the fork's message.
    expect(assistantTexts(await source.snapshot())).toEqual(['Source answer.']);
    const again = await source.send('and now?');
    expect(await source.ended(again)).toBe('completed');
    const sourceRequest = model.messageRequests.at(-1)!;
    expect(userTexts(sourceRequest)).toEqual(['remember the number 42', 'and now?']);
    expect(sourceRequest.headers['x-claude-code-session-id']).toBe(
      model.messageRequests[0]!.headers['x-claude-code-session-id'],
    );
    expect(forkSession).not.toBe(sourceRequest.headers['x-claude-code-session-id']);
  }, 120_000);

  it("the user's MCP servers (BATON_MCP_SERVERS) reach the agent: its call of one is an MCP tool node", async () => {
    const model = await scriptedModel();
    const baton = await api.serve(folders.make('baton-claude-api-mcp-'), {
      BATON_CLAUDE_BASE_URL: model.baseUrl,
      BATON_MCP_SERVERS: JSON.stringify(echoServers),
    });
    const t = await claudeThread(baton.url, workspace());
    model.enqueue({ kind: 'tool_use', name: 'mcp__echo__echo', input: { text: 'hi' } }, text('Echoed.'));
    const runId = await t.send('echo hi through MCP');
    // Claude asks before it calls an MCP server's tool.
    await t.respond((await t.approval(runId)).id, 'accept');
    expect(await t.ended(runId)).toBe('completed');
    // The agent tells the model of the server's tool (deferred: named, not among the request's tools).
    expect(JSON.stringify(model.messageRequests[0]!.body)).toContain('mcp__echo__echo');
    const graph = await t.client.query({ type: 'snapshot', request: { stream: 'graph', threadId: t.threadId } });
    const nodes = (
      graph.result as {
        snapshot: { nodes: { kind: string; title: string | null; status: string; detail: Record<string, unknown> }[] };
      }
    ).snapshot.nodes;
    const tool = nodes.find((n) => n.kind === 'tool_call');
    expect(tool).toMatchObject(echoedCall('hi'));
    t.client.close();
    const stopped = new Promise((resolve) => baton.child.once('exit', resolve));
    baton.child.kill('SIGTERM');
    await stopped;
  }, 120_000);
});
