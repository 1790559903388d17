import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatonClient } from '../../src/client/baton-client.js';
import { ScriptedMessagesServer } from '../../src/providers/model/scripted-messages-server.js';
import { ScriptedModelServer, type RecordedRequest } from '../../src/providers/model/scripted-model-server.js';
import type { BuiltInAgent } from '../support/live-acp.js';
import { sessionOf, userTexts } from '../support/messages-request.js';
import { processesIn } from '../support/processes.js';
import { useApiBatons } from '../support/api-batons.js';
import { until } from '../support/poll.js';
import type { ServeProcess } from '../support/serve-process.js';
import { assistantTexts, ok, type ThreadClient } from '../support/thread-client.js';

/**
 * The public Socket.IO API with `provider: "acp"`, on both built-in agents: a real Baton (in
 * this process, or `baton serve` as a child process that is SIGKILLed) runs the real agent,
 * whose model is one of Baton's scripted servers in this process (`BATON_CLAUDE_BASE_URL`
 * for claude-agent-acp, `BATON_CODEX_BASE_URL` for codex-acp), so each test scripts the
 * model's turns and reads what the agent asked it.
 */
const token = 'acp-api-test-token-0123456789';
/** What an agent runs as: claude-agent-acp is node (and Claude's native binary), codex-acp its binary. */
const agentComms = ['node', 'claude', 'codex-acp'];
const api = useApiBatons({ token, prefix: 'baton-acp-api', agentComms });
const { folders, workspace, onCleanup } = api;

/** The user texts of a Responses-API request (codex-acp's model). */
const inputTexts = (request: RecordedRequest): string[] =>
  (Array.isArray(request.body.input) ? (request.body.input as Record<string, unknown>[]) : [])
    .filter((i) => i.role === 'user')
    .flatMap((i) => (Array.isArray(i.content) ? (i.content as { text?: string }[]) : []).map((c) => c.text ?? ''));

/** One built-in agent as the tests script it: its model, and what the model was asked. */
interface AgentModel {
  agent: BuiltInAgent;
  env: Record<string, string>;
  config: { claudeBaseUrl?: string; codexBaseUrl?: string };
  text(text: string, chunks?: string[]): void;
  hang(): void;
  /** A tool call that writes `content` to `file` in the workspace, and asks before it does. */
  write(cwd: string, file: string, content: string): void;
  /** The end of a turn after a declined write: claude-agent-acp's model answers; codex-acp's turn ends (abort). */
  declineEnds: 'completed' | 'interrupted';
  requests(): number;
  waitForRequests(n: number): Promise<void>;
  /** The user texts of the model's latest request. */
  lastUserTexts(): string[];
  /** The agent session the model's request `i` belongs to. */
  session(i: number): string | undefined;
}

async function claudeAgentModel(): Promise<AgentModel> {
  const model = await new ScriptedMessagesServer(undefined, { isSideRequest: (r) => r.body.max_tokens === 1 }).start();
  onCleanup(() => model.stop());
  return {
    agent: 'claude-agent-acp',
    env: { BATON_CLAUDE_BASE_URL: model.baseUrl },
    config: { claudeBaseUrl: model.baseUrl },
    text: (text, chunks) => void model.enqueue({ kind: 'text', text, ...(chunks ? { chunks } : {}) }),
    hang: () => void model.enqueue({ kind: 'hang', text: 'Thinking' }),
    write: (cwd, file, content) =>
      void model.enqueue({ kind: 'tool_use', name: 'Write', input: { file_path: join(cwd, file), content } }),
    declineEnds: 'completed',
    requests: () => model.messageRequests.length,
    waitForRequests: (n) => model.waitForRequests(n),
    lastUserTexts: () => userTexts(model.messageRequests.at(-1)!),
    session: (i) => sessionOf(model.messageRequests.at(i)!),
  };
}

async function codexAgentModel(): Promise<AgentModel> {
  const model = await new ScriptedModelServer().start();
  onCleanup(() => model.stop());
  return {
    agent: 'codex-acp',
    env: { BATON_CODEX_BASE_URL: model.baseUrl },
    config: { codexBaseUrl: model.baseUrl },
    text: (text, chunks) => void model.enqueue({ kind: 'text', text, ...(chunks ? { chunks } : {}) }),
    hang: () => void model.enqueue({ kind: 'hang', text: 'Thinking' }),
    // An escalated command: codex-acp asks before it runs it.
    write: (_cwd, file, content) =>
      void model.enqueue({
        kind: 'exec',
        command: `printf '${content.replace(/\n/g, '\\n')}' > ${file}`,
        escalated: true,
        justification: `write ${file}`,
      }),
    declineEnds: 'interrupted',
    requests: () => model.requests.length,
    waitForRequests: (n) => model.waitForRequests(n),
    lastUserTexts: () => inputTexts(model.requests.at(-1)!),
    // Codex names its conversation in every request (the prompt cache key is the thread id).
    session: (i) => {
      const key = model.requests.at(i)?.body.prompt_cache_key;
      return typeof key === 'string' ? key : undefined;
    },
  };
}

/** A Baton in this process whose agents talk to the scripted model. */
const batonWith = (model: AgentModel): Promise<{ url: string }> => api.baton(model.config);

/** `baton serve` as a child process whose agents talk to the scripted model; resolves once it listens. */
const serveWith = (model: AgentModel, dataDir: string): Promise<ServeProcess> => api.serve(dataDir, model.env);

// Read-only: every write the agent makes asks first (the tests answer), on both agents.
const acpThread = (url: string, cwd: string, agent: BuiltInAgent): Promise<ThreadClient> =>
  api.create(url, { cwd, provider: 'acp', acpAgent: agent, runtimeMode: 'read_only' });

const agents: [BuiltInAgent, () => Promise<AgentModel>][] = [
  ['claude-agent-acp', claudeAgentModel],
  ['codex-acp', codexAgentModel],
];

for (const [agent, scripted] of agents) {
  describe(`Socket.IO API with provider "acp", agent ${agent} (the real agent)`, () => {
    it('streams a reply', async () => {
      const model = await scripted();
      const app = await batonWith(model);
      const t = await acpThread(app.url, workspace(), agent);
      model.text('Hello over ACP.', ['Hello ', 'over ', 'ACP.']);
      const runId = await t.send('say hello');
      expect(await t.ended(runId)).toBe('completed');
      const deltas = t.events.filter((e) => e.type === 'message.delta');
      expect(deltas.length).toBeGreaterThanOrEqual(3);
      expect(assistantTexts(await t.snapshot())).toEqual(['Hello over ACP.']);
    }, 90_000);

    it('an approval lets the agent write a file; a declined one leaves none', async () => {
      const model = await scripted();
      const app = await batonWith(model);
      const cwd = workspace();
      const t = await acpThread(app.url, cwd, agent);
      model.write(cwd, 'proof.txt', 'approved\n');
      model.text('Written.');
      const one = await t.send('write the proof');
      const asked = await t.approval(one);
      expect(existsSync(join(cwd, 'proof.txt'))).toBe(false);
      await t.respond(asked.id, 'accept');
      expect(await t.ended(one)).toBe('completed');
      expect(readFileSync(join(cwd, 'proof.txt'), 'utf8')).toBe('approved\n');

      model.write(cwd, 'declined.txt', 'nope\n');
      model.text('Understood, not written.');
      const two = await t.send('write another, maybe');
      await t.respond((await t.approval(two)).id, 'decline');
      expect(await t.ended(two)).toBe(model.declineEnds);
      expect(existsSync(join(cwd, 'declined.txt'))).toBe(false);
    }, 120_000);

    it('an interrupt ends the run interrupted, and the thread answers after it', async () => {
      const model = await scripted();
      const app = await batonWith(model);
      const t = await acpThread(app.url, workspace(), agent);
      model.hang();
      model.text('Still here.');
      const runId = await t.send('take your time');
      await model.waitForRequests(1);
      ok(await t.client.command('run.interrupt', { runId }));
      expect(await t.ended(runId)).toBe('interrupted');
      const next = await t.send('are you there?');
      expect(await t.ended(next)).toBe('completed');
      expect(assistantTexts(await t.snapshot()).at(-1)).toBe('Still here.');
    }, 90_000);

    it('after a Baton SIGKILL mid-run, the next message resumes the same session', async () => {
      const model = await scripted();
      const dataDir = folders.make('baton-acp-api-kill-');
      const cwd = workspace();
      const first = await serveWith(model, dataDir);
      let t = await acpThread(first.url, cwd, agent);
      const threadId = t.threadId;
      model.text('Noted: 42.');
      model.hang();
      model.text('It was 42.');
      const one = await t.send('remember 42');
      expect(await t.ended(one)).toBe('completed');
      const two = await t.send('think hard');
      await model.waitForRequests(2);
      expect(processesIn(agentComms, cwd).length).toBeGreaterThan(0);
      t.client.close();
      const exited = new Promise((resolve) => first.child.once('exit', resolve));
      first.child.kill('SIGKILL');
      await exited;
      // The agent dies with the killed Baton (a parent-death signal).
      await until(() => processesIn(agentComms, cwd).length === 0, "the killed Baton's agent to die with it", 5_000);

      const second = await serveWith(model, dataDir);
      t = await api.open(second.url, threadId);
      const three = await t.send('what was the number?');
      expect(await t.ended(three)).toBe('completed');
      expect(model.lastUserTexts()).toEqual(expect.arrayContaining(['remember 42', 'what was the number?']));
      expect(model.session(-1)).toBeTruthy();
      expect(model.session(-1)).toBe(model.session(0));
      const runs = (await t.snapshot()).runs;
      expect(['failed', 'interrupted']).toContain(runs.find((r) => r.id === two)!.status);
      expect(assistantTexts(await t.snapshot()).at(-1)).toBe('It was 42.');
      t.client.close();
      const stopped = new Promise((resolve) => second.child.once('exit', resolve));
      second.child.kill('SIGTERM');
      await stopped;
    }, 180_000);

    it('a rollback restores the files, and the next prompt carries Baton’s reseed in a new session', async () => {
      const model = await scripted();
      const app = await batonWith(model);
      const cwd = workspace();
      const t = await acpThread(app.url, cwd, agent);
      model.write(cwd, 'one.txt', 'one\n');
      model.text('Wrote one.');
      model.write(cwd, 'two.txt', 'two\n');
      model.text('Wrote two.');
      model.text('After the rollback.');
      expect(await t.sendApproved('write one')).toBe('completed');
      expect(await t.sendApproved('write two')).toBe('completed');
      expect(readFileSync(join(cwd, 'two.txt'), 'utf8')).toBe('two\n');
      const before = model.requests();

      ok(await t.client.command('rollback.toRun', { threadId: t.threadId, runOrdinal: 1 }));
      await t.next((e) => (e.type === 'thread.rolled-back' ? e : undefined), 'the rollback');
      expect(readFileSync(join(cwd, 'one.txt'), 'utf8')).toBe('one\n');
      expect(existsSync(join(cwd, 'two.txt'))).toBe(false);

      const three = await t.send('what is there now?');
      expect(await t.ended(three)).toBe('completed');
      const seeded = t.events.find((e) => e.type === 'context.seeded' && e.payload.runId === three);
      expect(seeded?.payload).toMatchObject({ coveredRunOrdinals: [1] });
      // One request: the replacement session's first prompt, Baton's account of run 1 before the message.
      expect(model.requests()).toBe(before + 1);
      const prompt = model.lastUserTexts().join('\n');
      expect(prompt).toContain('write one');
      expect(prompt).toContain('Wrote one.');
      expect(prompt).not.toContain('write two');
      expect(prompt.trimEnd().endsWith('what is there now?')).toBe(true);
      expect(model.session(-1)).not.toBe(model.session(0));
      const snap = await t.snapshot();
      expect(snap.runs.find((r) => r.ordinal === 2 && r.id !== three)?.status).toBe('rolled_back');
      expect(assistantTexts(snap).at(-1)).toBe('After the rollback.');
    }, 120_000);
  });
}

describe('Socket.IO API with provider "acp": the agent a thread names', () => {
  it('a thread created with an unknown agent is refused, typed, naming the agents Baton runs', async () => {
    const model = await claudeAgentModel();
    const app = await batonWith(model);
    const client = await BatonClient.connect(app.url, token);
    onCleanup(() => client.close());
    const cwd = workspace();
    const ack = await client.command('thread.create', { cwd, provider: 'acp', acpAgent: 'no-such-agent' });
    expect(ack.ok).toBe(false);
    if (ack.ok) return;
    expect(ack.error.code).toBe('invalid_payload');
    expect(ack.error.message).toContain('claude-agent-acp');
    expect(ack.error.message).toContain('codex-acp');
    // Nothing was created: no thread, no agent started.
    expect(processesIn(agentComms, cwd)).toEqual([]);
  }, 30_000);
});
