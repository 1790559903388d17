import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startBaton } from '../../src/app/baton-app.js';
import { BatonClient, type CommandAck } from '../../src/client/baton-client.js';
import { loadConfig } from '../../src/config.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { RunId, RuntimeRequestId, ThreadId } from '../../src/domain/ids.js';
import { ScriptedMessagesServer, type MessagesTurn } from '../../src/providers/model/scripted-messages-server.js';
import { userTexts } from '../support/messages-request.js';
import { processesIn } from '../support/processes.js';
import { serveProcess, type ServeProcess } from '../support/serve-process.js';
import { TempFolders } from '../support/temp.js';

/**
 * The public Socket.IO API with `provider: "claude"`: the real Claude agent behind a real
 * Baton (in this process, or `baton serve` as a child process that is SIGKILLed), its model
 * Baton's scripted Messages-API server in this process (given as `BATON_CLAUDE_BASE_URL`), so
 * each test scripts the model's turns and reads what the agent asked it.
 */
const token = 'claude-api-test-token-0123456789';
const folders = new TempFolders();
const cleanups: (() => Promise<void> | void)[] = [];
const workspaces: string[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  // Every agent a test started is gone with its Baton.
  for (const ws of workspaces.splice(0)) expect(processesIn(['claude'], ws)).toEqual([]);
  folders.removeAll();
});

const workspace = (): string => {
  const ws = realpathSync(folders.make('baton-claude-api-ws-'));
  workspaces.push(ws);
  return ws;
};

async function scriptedModel(): Promise<ScriptedMessagesServer> {
  // The agent's one-token probes are answered on the side, not from the script.
  const model = await new ScriptedMessagesServer(undefined, { isSideRequest: (r) => r.body.max_tokens === 1 }).start();
  cleanups.push(() => model.stop());
  return model;
}

/** A Baton in this process whose Claude agent talks to `model`. */
async function batonWith(model: ScriptedMessagesServer): Promise<{ url: string }> {
  const config = loadConfig(
    {},
    { dataDir: folders.make('baton-claude-api-'), port: 0, token, claudeBaseUrl: model.baseUrl },
  );
  const app = await startBaton(config, pino({ level: 'silent' }));
  cleanups.push(() => app.stop());
  return app;
}

/** `baton serve` as a child process whose Claude agent talks to `model`; resolves once it listens. */
async function serveWith(model: ScriptedMessagesServer, dataDir: string): Promise<ServeProcess> {
  const env = { BATON_TOKEN: token, BATON_CLAUDE_BASE_URL: model.baseUrl };
  const serve = await serveProcess(dataDir, env, undefined, 'configured');
  cleanups.push(() => void serve.child.kill('SIGKILL'));
  return serve;
}

const ok = <R = Record<string, unknown>>(ack: CommandAck): R => {
  if (!ack.ok) throw new Error(`refused: ${ack.error.code}: ${ack.error.message}`);
  return ack.result as R;
};

/** A client on one thread: every event it sees, and waits for the one a test needs (with a deadline). */
class ThreadClient {
  readonly events: DomainEvent[] = [];
  private readonly waiters: (() => boolean)[] = [];

  private constructor(
    readonly client: BatonClient,
    readonly threadId: ThreadId,
  ) {}

  static async open(url: string, threadId: string): Promise<ThreadClient> {
    const client = await BatonClient.connect(url, token);
    cleanups.push(() => client.close());
    const t = new ThreadClient(client, ThreadId.parse(threadId));
    await client.subscribe({ stream: 'thread', threadId: t.threadId }, (e) => {
      t.events.push(e);
      for (const w of [...t.waiters]) if (w()) t.waiters.splice(t.waiters.indexOf(w), 1);
    });
    return t;
  }

  /** Resolves with what `pick` finds in the events seen so far or later. */
  next<T>(pick: (e: DomainEvent) => T | undefined, what: string, timeoutMs = 60_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const look = () => {
        for (const e of this.events) {
          const found = pick(e);
          if (found !== undefined) {
            clearTimeout(timer);
            resolve(found);
            return true;
          }
        }
        return false;
      };
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      if (!look()) this.waiters.push(look);
    });
  }

  async send(text: string): Promise<RunId> {
    const { runId } = ok<{ runId: string }>(
      await this.client.command('thread.message.send', { threadId: this.threadId, text }),
    );
    return RunId.parse(runId);
  }

  /** The run's terminal status. */
  ended(runId: RunId): Promise<string> {
    return this.next(
      (e) => (e.type === 'run.terminal' && e.payload.runId === runId ? String(e.payload.status) : undefined),
      `run ${runId} to end`,
    );
  }

  /** The first approval request opened for the run. */
  approval(runId: RunId): Promise<{ id: string; kind: string }> {
    return this.next(
      (e) => (e.type === 'runtime-request.opened' && e.payload.request.runId === runId ? e.payload.request : undefined),
      `an approval request of run ${runId}`,
    );
  }

  async respond(requestId: string, decision: 'accept' | 'decline'): Promise<void> {
    ok(
      await this.client.command('runtime-request.respond', { requestId: RuntimeRequestId.parse(requestId), decision }),
    );
  }

  async snapshot(threadId: string = this.threadId): Promise<Snapshot> {
    const answer = await this.client.query({ type: 'snapshot', request: { stream: 'thread', threadId } });
    return (answer.result as { snapshot: Snapshot }).snapshot;
  }
}

interface Snapshot {
  thread: { cwd: string };
  runs: { id: string; status: string; ordinal: number }[];
  turnItems: { kind: string; text: string }[];
}

async function claudeThread(url: string, cwd: string, extra: Record<string, unknown> = {}): Promise<ThreadClient> {
  const client = await BatonClient.connect(url, token);
  const { threadId } = ok<{ threadId: string }>(
    await client.command('thread.create', { cwd, provider: 'claude', ...extra }),
  );
  client.close();
  return ThreadClient.open(url, threadId);
}

const bash = (command: string): MessagesTurn => ({ kind: 'tool_use', name: 'Bash', input: { command } });
const write = (path: string, content: string): MessagesTurn => ({
  kind: 'tool_use',
  name: 'Write',
  input: { file_path: path, content },
});
const text = (t: string): MessagesTurn => ({ kind: 'text', text: t });

const assistantTexts = (snap: Snapshot) =>
  snap.turnItems.filter((i) => i.kind === 'assistant_message').map((i) => i.text);

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
    t = await ThreadClient.open(second.url, threadId);
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
    const fork = await ThreadClient.open(app.url, forkId);
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
});

/** Polls a condition about the processes of the machine (there is no event for another process's exit). */
async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 25));
  }
}
