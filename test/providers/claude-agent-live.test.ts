import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  query,
  type CanUseTool,
  type Query,
  type SDKMessage,
  type SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ClaudeEndpoint,
  DUMMY_ANTHROPIC_API_KEY,
  claudeBinaryPath,
  claudeEnv,
  claudeOptions,
  claudeSessionDirs,
  ensureClaudeSessionDirs,
  type ClaudeSessionDirs,
} from '../../src/providers/claude/claude-environment.js';
import { ScriptedMessagesServer, type MessagesRequest } from '../../src/providers/model/scripted-messages-server.js';
import { TempFolders } from '../support/temp.js';

/**
 * The real Claude agent (the SDK's native binary) through `query()` in streaming-input mode,
 * against Baton's scripted Messages-API server on 127.0.0.1: the facts the Claude adapter
 * relies on. Every wait is on an event, with a deadline.
 */

const MODEL = 'claude-sonnet-4-5';
const BINARY_MARK = 'claude-agent-sdk-linux-x64/claude';

/** This worker's own `claude` processes (the SDK spawns the binary as our child). */
function myClaudeProcesses(): number[] {
  const out = spawnSync('pgrep', ['-P', String(process.pid), '-f', BINARY_MARK], { encoding: 'utf8' });
  return out.stdout
    .split('\n')
    .filter((line) => line.trim())
    .map(Number);
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const userMessage = (text: string): SDKUserMessage => ({
  type: 'user',
  message: { role: 'user', content: text },
  parent_tool_use_id: null,
});

type Decide = (toolName: string, input: Record<string, unknown>) => 'allow' | 'deny' | Promise<'allow' | 'deny'>;

/** One long-lived streaming-input query: user messages are pushed, SDK messages collected. */
class LiveClaude {
  readonly messages: SDKMessage[] = [];
  readonly permissionAsks: { toolName: string; input: Record<string, unknown>; toolUseID: string }[] = [];
  private readonly pending: SDKUserMessage[] = [];
  private wake: (() => void) | null = null;
  private ended = false;
  /** User messages the SDK has taken from the input so far. */
  handedOver = 0;
  private readonly abort = new AbortController();
  readonly query: Query;
  private readonly drained: Promise<void>;
  stderr = '';

  constructor(
    cwd: string,
    dirs: ClaudeSessionDirs,
    server: ScriptedMessagesServer,
    decide: Decide = () => 'allow',
    resume?: string,
  ) {
    const canUseTool: CanUseTool = async (toolName, input, { toolUseID }) => {
      this.permissionAsks.push({ toolName, input, toolUseID });
      return (await decide(toolName, input)) === 'allow'
        ? { behavior: 'allow', updatedInput: input }
        : { behavior: 'deny', message: 'Declined by the Baton probe.' };
    };
    const env = claudeEnv({ endpoint: { baseUrl: server.baseUrl, model: MODEL }, dirs });
    const running = query({
      prompt: this.input(),
      options: claudeOptions({
        cwd,
        model: MODEL,
        env,
        canUseTool,
        abortController: this.abort,
        ...(resume ? { resume } : {}),
        stderr: (data) => (this.stderr += data),
      }),
    });
    this.query = running;
    this.drained = (async () => {
      for await (const message of running) this.messages.push(message);
    })();
    // A failure surfaces through `results`/`message` waits timing out, and in `close`.
    this.drained.catch(() => undefined);
  }

  private async *input(): AsyncGenerator<SDKUserMessage> {
    while (!this.ended) {
      const next = this.pending.shift();
      if (next) {
        // The SDK asked for the next message: it is handed over now.
        this.handedOver += 1;
        yield next;
      } else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  send(text: string): void {
    this.pending.push(userMessage(text));
    this.wake?.();
  }

  results(): Extract<SDKMessage, { type: 'result' }>[] {
    return this.messages.filter((m): m is Extract<SDKMessage, { type: 'result' }> => m.type === 'result');
  }

  /** Resolves with the `count`th `result` (1-based). */
  result(count: number, timeoutMs = 20_000): Promise<Extract<SDKMessage, { type: 'result' }>> {
    return until(`result #${count} (stderr: ${this.stderr.slice(-500)})`, () => this.results()[count - 1], timeoutMs);
  }

  message<T extends SDKMessage>(what: string, match: (m: SDKMessage) => m is T, timeoutMs = 20_000): Promise<T> {
    return until(what, () => this.messages.find(match), timeoutMs);
  }

  /** The text deltas of the partial stream events, in order. */
  textDeltas(): string[] {
    return this.messages.flatMap((m) =>
      m.type === 'stream_event' &&
      m.event.type === 'content_block_delta' &&
      m.event.delta.type === 'text_delta' &&
      m.parent_tool_use_id === null
        ? [m.event.delta.text]
        : [],
    );
  }

  /** Ends the input and closes the query (the SDK kills the process); `noClaudeLeft` waits for it to go. */
  async close(): Promise<void> {
    this.ended = true;
    this.wake?.();
    this.query.close();
    this.abort.abort();
    await this.drained.catch(() => undefined);
  }
}

const noClaudeLeft = () =>
  until('our claude processes to exit', () => (myClaudeProcesses().length === 0 ? true : undefined), 10_000);

const isInit = (m: SDKMessage): m is Extract<SDKMessage, { type: 'system'; subtype: 'init' }> =>
  m.type === 'system' && m.subtype === 'init';

/** The content blocks of a request's messages, flattened, with the role they came in. */
function blocks(request: MessagesRequest): { role: string; block: Record<string, unknown> }[] {
  return request.body.messages.flatMap((m) =>
    typeof m.content === 'string'
      ? [{ role: m.role, block: { type: 'text', text: m.content } }]
      : m.content.map((block) => ({ role: m.role, block })),
  );
}

/** The user texts a request carries, without Claude Code's `<system-reminder>` blocks. */
const userTexts = (request: MessagesRequest): string[] =>
  blocks(request).flatMap(({ role, block }) =>
    role === 'user' &&
    block.type === 'text' &&
    typeof block.text === 'string' &&
    !block.text.trimStart().startsWith('<system-reminder>')
      ? [block.text]
      : [],
  );

const assistantTexts = (request: MessagesRequest): string[] =>
  blocks(request).flatMap(({ role, block }) =>
    role === 'assistant' && block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
  );

describe('the real Claude agent against the scripted Messages-API server', () => {
  const temps = new TempFolders();
  let server: ScriptedMessagesServer;
  let base: string;
  let dirs: ClaudeSessionDirs;
  let workspace: string;
  const live: LiveClaude[] = [];
  const start = (...args: [decide?: Decide, resume?: string]) => {
    const claude = new LiveClaude(workspace, dirs, server, ...args);
    live.push(claude);
    return claude;
  };

  beforeEach(async () => {
    server = await new ScriptedMessagesServer().start();
    base = temps.make('baton-claude-live-');
    dirs = ensureClaudeSessionDirs(claudeSessionDirs(join(base, 'claude'), 'session-1'));
    workspace = join(base, 'workspace');
    mkdirSync(workspace);
  });

  afterEach(async () => {
    for (const claude of live.splice(0)) await claude.close();
    await noClaudeLeft();
    // Only the scripted turns were asked for: no titles, quota checks, token counts or probes on the side.
    expect(server.requests.length).toBe(server.messageRequests.length);
    expect(server.requests.filter((r) => `${r.method} ${r.path}?${r.query}` !== 'POST /v1/messages?beta=true')).toEqual(
      [],
    );
    await server.stop();
    temps.removeAll();
  });

  it('builds an isolated environment: private folders, the binary, no parent secrets', () => {
    expect(claudeBinaryPath()).toMatch(/claude-agent-sdk-linux-x64\/claude$/);
    for (const dir of [dirs.root, dirs.home, dirs.configDir, dirs.tmpDir])
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(() => claudeSessionDirs(base, '../escape')).toThrow(/session key/);

    const env = claudeEnv({
      endpoint: { baseUrl: 'http://127.0.0.1:9', model: MODEL },
      dirs,
      parentEnv: { PATH: '/usr/bin:/bin', GITHUB_TOKEN: 'secret', ANTHROPIC_API_KEY: 'real', IS_SANDBOX: 'yes' },
    });
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: dirs.home,
      CLAUDE_CONFIG_DIR: dirs.configDir,
      CLAUDE_CODE_TMPDIR: dirs.tmpDir,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      ANTHROPIC_API_KEY: DUMMY_ANTHROPIC_API_KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_ENABLE_TASKS: 'false',
    });
    expect(ClaudeEndpoint.safeParse({ baseUrl: 'http://127.0.0.1:9/v1', model: MODEL }).success).toBe(false);
  });

  it(
    'streams a text turn: init gives the session id, text deltas add up, a success result ends it',
    { timeout: 30_000 },
    async () => {
      const text = 'Hello from the scripted model, streamed in pieces.';
      server.enqueue({ kind: 'text', text, chunks: ['Hello from ', 'the scripted model, ', 'streamed in pieces.'] });
      const claude = start();
      claude.send('Say hello.');
      const result = await claude.result(1);
      // One agent process per query, our child (what the after-each check looks for).
      expect(myClaudeProcesses()).toHaveLength(1);

      const init = await claude.message('init', isInit);
      expect(init.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(init.cwd).toBe(workspace);
      expect(init.model).toBe(MODEL);
      expect(init.permissionMode).toBe('default');
      expect(init.apiKeySource).toBe('ANTHROPIC_API_KEY');
      expect(claude.textDeltas()).toEqual(['Hello from ', 'the scripted model, ', 'streamed in pieces.']);
      expect(claude.textDeltas().join('')).toBe(text);
      expect(result.subtype).toBe('success');
      expect(result.session_id).toBe(init.session_id);
      if (result.subtype === 'success') expect(result.result).toBe(text);
      // Every stream event and the result carry the same session id.
      expect(new Set(claude.messages.map((m) => ('session_id' in m ? m.session_id : init.session_id)))).toEqual(
        new Set([init.session_id]),
      );

      // Exactly one model request, streamed: no titles, quota checks or token counts on the side.
      expect(server.requests.map((r) => `${r.method} ${r.path}?${r.query}`)).toEqual(['POST /v1/messages?beta=true']);
      const [request] = server.messageRequests;
      expect(request?.body.stream).toBe(true);
      expect(request?.body.model).toBe(MODEL);
      expect(request?.headers['x-claude-code-session-id']).toBe(init.session_id);
      expect(userTexts(request!)).toEqual(['Say hello.']);
    },
  );

  it(
    'asks canUseTool for Bash; allowed, the command runs in the cwd and its tool_result goes back',
    { timeout: 30_000 },
    async () => {
      server.enqueue(
        {
          kind: 'tool_use',
          name: 'Bash',
          id: 'toolu_allow01',
          input: { command: 'echo made > made.txt', description: 'Make a file' },
        },
        { kind: 'text', text: 'Made it.' },
      );
      const claude = start(() => 'allow');
      claude.send('Make a file.');
      const result = await claude.result(1);

      expect(result.subtype).toBe('success');
      expect(claude.permissionAsks).toEqual([
        {
          toolName: 'Bash',
          input: { command: 'echo made > made.txt', description: 'Make a file' },
          toolUseID: 'toolu_allow01',
        },
      ]);
      expect(existsSync(join(workspace, 'made.txt'))).toBe(true);
      expect(server.messageRequests).toHaveLength(2);
      const toolResult = blocks(server.messageRequests[1]!).find(({ block }) => block.type === 'tool_result')?.block;
      expect(toolResult).toMatchObject({ tool_use_id: 'toolu_allow01' });
      expect(toolResult?.is_error ?? false).toBe(false);
    },
  );

  it('denied, the command does not run and an error tool_result goes back', { timeout: 30_000 }, async () => {
    server.enqueue(
      { kind: 'tool_use', name: 'Bash', id: 'toolu_deny01', input: { command: 'echo made > denied.txt' } },
      { kind: 'text', text: 'Understood.' },
    );
    const claude = start(() => 'deny');
    claude.send('Make a file.');
    const result = await claude.result(1);

    expect(result.subtype).toBe('success');
    expect(claude.permissionAsks.map((a) => a.toolName)).toEqual(['Bash']);
    expect(existsSync(join(workspace, 'denied.txt'))).toBe(false);
    expect(server.messageRequests).toHaveLength(2);
    const toolResult = blocks(server.messageRequests[1]!).find(({ block }) => block.type === 'tool_result')?.block;
    expect(toolResult).toMatchObject({ tool_use_id: 'toolu_deny01', is_error: true });
    expect(JSON.stringify(toolResult?.content)).toContain('Declined by the Baton probe.');
  });

  it(
    'interrupts a hanging turn: interrupt() answers fast and a result ends the turn; the query goes on',
    { timeout: 30_000 },
    async () => {
      server.enqueue({ kind: 'hang', text: 'Thinking about it' }, { kind: 'text', text: 'Back again.' });
      const claude = start();
      claude.send('Take your time.');
      await until('the hanging stream to start', () => (claude.textDeltas().length > 0 ? true : undefined), 20_000);

      const asked = performance.now();
      await claude.query.interrupt();
      const interruptMs = performance.now() - asked;
      const result = await claude.result(1);
      const endedMs = performance.now() - asked;
      console.log(
        `interrupt() resolved in ${interruptMs.toFixed(0)} ms; result ${result.subtype} after ${endedMs.toFixed(0)} ms`,
      );

      expect(interruptMs).toBeLessThan(2_000);
      expect(result.subtype).toBe('error_during_execution');
      expect(server.messageRequests).toHaveLength(1);

      // The same query takes the next message.
      claude.send('Are you there?');
      const next = await claude.result(2);
      expect(next.subtype).toBe('success');
      expect(server.messageRequests).toHaveLength(2);
      // The interrupted turn stays in the conversation: its partial text, then a marker.
      const after = server.messageRequests[1]!;
      expect(assistantTexts(after)).toEqual(['Thinking about it']);
      expect(userTexts(after)).toEqual(['Take your time.', '[Request interrupted by user]\n', 'Are you there?']);
    },
  );

  it('continues the same session with a second user message on the same query', { timeout: 30_000 }, async () => {
    server.enqueue({ kind: 'text', text: 'First answer.' }, { kind: 'text', text: 'Second answer.' });
    const claude = start();
    claude.send('First question.');
    const first = await claude.result(1);
    claude.send('Second question.');
    const second = await claude.result(2);

    expect(first.subtype).toBe('success');
    expect(second.subtype).toBe('success');
    expect(second.session_id).toBe(first.session_id);
    // Each turn opens with its own system/init, under the same session id.
    expect(claude.messages.filter(isInit).map((m) => m.session_id)).toEqual([first.session_id, first.session_id]);
    expect(server.requests).toHaveLength(2);
    const request = server.messageRequests[1]!;
    expect(userTexts(request)).toEqual(['First question.', 'Second question.']);
    expect(assistantTexts(request)).toEqual(['First answer.']);
  });

  it(
    'folds a message sent while a tool call runs into that tool_result (native steering, one turn)',
    { timeout: 30_000 },
    async () => {
      server.enqueue(
        { kind: 'tool_use', name: 'Bash', id: 'toolu_steer01', input: { command: 'sleep 0.5 && echo one > one.txt' } },
        { kind: 'text', text: 'Steered.' },
      );
      // The approval waits until the steering message has been handed to the SDK; the
      // command then takes half a second, long before which the agent has read it.
      let steered: () => void = () => undefined;
      const handedOver = new Promise<void>((resolve) => (steered = resolve));
      const claude = start(async (): Promise<'allow'> => {
        await handedOver;
        return 'allow';
      });
      claude.send('Do the thing.');
      await until('the approval request', () => (claude.permissionAsks.length > 0 ? true : undefined), 20_000);
      claude.send('Also, steer this way.');
      await until('the SDK to take the message', () => (claude.handedOver === 2 ? true : undefined), 5_000);
      steered();
      const result = await claude.result(1);

      expect(result.subtype).toBe('success');
      expect(existsSync(join(workspace, 'one.txt'))).toBe(true);
      expect(server.messageRequests).toHaveLength(2);
      const toolResult = blocks(server.messageRequests[1]!).find(({ block }) => block.type === 'tool_result')?.block;
      expect(toolResult).toMatchObject({ tool_use_id: 'toolu_steer01', is_error: false });
      // Appended to the tool's output as a reminder, not sent as a user text block.
      expect(JSON.stringify(toolResult?.content)).toContain('The user sent a new message while you were working:');
      expect(JSON.stringify(toolResult?.content)).toContain('Also, steer this way.');
      expect(userTexts(server.messageRequests[1]!)).toEqual(['Do the thing.']);
      // No second turn follows.
      expect(claude.results()).toHaveLength(1);
    },
  );

  it('queues a message sent while only text streams: it becomes the next turn', { timeout: 30_000 }, async () => {
    server.enqueue(
      { kind: 'text', text: 'one two three four five six', delayMs: 300 },
      { kind: 'text', text: 'Second reply.' },
    );
    const claude = start();
    claude.send('Talk slowly.');
    await until('the stream to start', () => (claude.textDeltas().length > 0 ? true : undefined), 20_000);
    claude.send('Mid-stream message.');
    const first = await claude.result(1);
    const second = await claude.result(2);

    expect([first.subtype, second.subtype]).toEqual(['success', 'success']);
    expect(server.messageRequests).toHaveLength(2);
    expect(userTexts(server.messageRequests[0]!)).toEqual(['Talk slowly.']);
    const request = server.messageRequests[1]!;
    expect(userTexts(request)).toEqual(['Talk slowly.', 'Mid-stream message.']);
    expect(assistantTexts(request)).toEqual(['one two three four five six']);
  });

  it('retries a stream that fails midway at once, without streaming', { timeout: 30_000 }, async () => {
    const text = 'The whole answer.';
    server.enqueue({ kind: 'stream_error', text: 'partial ' }, { kind: 'text', text });
    const claude = start();
    claude.send('Answer.');
    const result = await claude.result(1);

    expect(result.subtype).toBe('success');
    if (result.subtype === 'success') expect(result.result).toBe(text);
    expect(server.messageRequests.map((r) => r.body.stream)).toEqual([true, false]);
    // The failed stream's deltas were already out (then a content_block_stop and a message_stop
    // the server never sent); the retry's reply comes only as a whole assistant message.
    expect(claude.textDeltas()).toEqual(['partial ']);
    const replies = claude.messages.flatMap((m) =>
      m.type === 'assistant' ? m.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])) : [],
    );
    expect(replies).toEqual([text]);
  });

  it(
    'resumes a session by id in a new query and the next request carries the earlier turn',
    { timeout: 30_000 },
    async () => {
      server.enqueue({ kind: 'text', text: 'Remembered answer.' }, { kind: 'text', text: 'Resumed answer.' });
      const first = start();
      first.send('Remember this.');
      const before = await first.result(1);
      await first.close();
      await noClaudeLeft();

      const resumed = start(undefined, before.session_id);
      resumed.send('What did I say?');
      const after = await resumed.result(1);

      expect(after.subtype).toBe('success');
      // Resuming keeps the session id (no fork).
      const init = await resumed.message('init', isInit);
      expect(init.session_id).toBe(before.session_id);
      expect(after.session_id).toBe(before.session_id);
      expect(server.messageRequests).toHaveLength(2);
      const request = server.messageRequests[1]!;
      expect(userTexts(request)).toEqual(['Remember this.', 'What did I say?']);
      expect(assistantTexts(request)).toEqual(['Remembered answer.']);
      // The transcript resume read is in the session's config dir; HOME stays empty.
      const project = readdirSync(join(dirs.configDir, 'projects'));
      expect(project).toHaveLength(1);
      expect(readdirSync(join(dirs.configDir, 'projects', project[0]!))).toContain(`${before.session_id}.jsonl`);
      expect(readdirSync(dirs.home)).toEqual([]);
    },
  );
});
