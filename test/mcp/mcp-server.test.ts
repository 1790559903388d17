import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, mcpClient as sharedMcpClient } from './mcp-support.js';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import { loadConfig } from '../../src/config.js';
import type { DomainEvent } from '../../src/domain/events.js';
import type { ModelTurn } from '../../src/providers/model/scripted-model-server.js';
import { useBatons } from '../support/baton-app.js';
import { until } from '../support/poll.js';
import { processesIn } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const { baton, onCleanup } = useBatons();

const workspace = () => {
  const ws = tempDir('baton-mcp-ws-');
  onCleanup(ws.cleanup);
  return ws.dir;
};

/** Baton's scripted model answering `script` in order, then `more`. */
const scripted = (script: ModelTurn[]) => baton((_request, i) => script[i] ?? { kind: 'text', text: 'more' });

/** An SDK MCP client on the Baton's `/mcp`, with its token as a bearer token (closed after the test). */
const mcpClient = (app: BatonApp, token = app.token): Promise<Client> => sharedMcpClient(app, onCleanup, token);

async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const { isError, value } = await call(client, name, args);
  if (isError) throw new Error(`${name} refused: ${JSON.stringify(value)}`);
  return value;
}

/** Resolves on the first committed event that `match`es (the runtime's publications; no polling). */
function nextEvent(app: BatonApp, match: (e: DomainEvent) => boolean, timeoutMs = 30_000): Promise<DomainEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (stop(), reject(new Error('the event did not come in time'))), timeoutMs);
    const stop = app.runtime.onEvents((events) => {
      const found = events.find(match);
      if (found) (stop(), clearTimeout(timer), resolve(found));
    });
  });
}

const post = (app: BatonApp, headers: Record<string, string>) =>
  fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

describe('the orchestrator MCP server at /mcp', () => {
  it('an SDK client with Baton’s token lists the tools and runs a thread end to end on the real Codex', async () => {
    const app = await scripted([{ kind: 'text', text: 'Hello from Codex.' }]);
    const client = await mcpClient(app);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'create_threads',
        'delegate_task',
        'orchestrator_capabilities',
        'task_cancel',
        'task_status',
        'thread_fork',
        'thread_interrupt',
        'thread_list',
        'thread_read',
        'thread_send',
        'thread_start',
        'thread_wait',
      ].sort(),
    );
    expect(tools.find((t) => t.name === 'thread_send')!.inputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['threadId', 'text']),
      properties: { mode: { enum: ['auto', 'queue', 'steer', 'restart'] } },
    });

    const capabilities = await ok(client, 'orchestrator_capabilities', {});
    expect(capabilities.providers.map((p: { id: string }) => p.id)).toEqual(['codex', 'claude', 'acp']);
    expect(capabilities.providers[0].capabilities.threads).toContain('canForkThread');
    expect(capabilities.providers[2].agents.map((a: { name: string }) => a.name)).toEqual(
      expect.arrayContaining(['claude-agent-acp', 'codex-acp']),
    );

    const started = await ok(client, 'thread_start', { cwd: workspace(), title: 'Greeting', text: 'say hello' });
    expect(started).toMatchObject({ threadId: expect.any(String), runId: expect.any(String), dispatched: 'started' });
    const waited = await ok(client, 'thread_wait', { threadId: started.threadId, timeoutMs: 45_000 });
    expect(waited).toMatchObject({
      done: true,
      timedOut: false,
      run: { runId: started.runId, status: 'completed', provider: 'codex', ordinal: 1 },
      lastAssistantMessage: 'Hello from Codex.',
      pendingRequests: [],
    });

    const read = await ok(client, 'thread_read', { threadId: started.threadId });
    expect(read.thread).toMatchObject({ threadId: started.threadId, title: 'Greeting', activeRunId: null });
    expect(read.runs).toMatchObject([{ runId: started.runId, status: 'completed' }]);
    expect(read.items.map((i: { kind: string; text: string }) => [i.kind, i.text])).toEqual(
      expect.arrayContaining([
        ['user_message', 'say hello'],
        ['assistant_message', 'Hello from Codex.'],
      ]),
    );
    const listed = await ok(client, 'thread_list', {});
    expect(listed.threads.map((t: { threadId: string }) => t.threadId)).toEqual([started.threadId]);
  }, 60_000);

  it('refuses a missing or wrong token with 401 and a typed error before any MCP processing', async () => {
    const app = await baton();
    const before = app.runtime.store.lastSequence();
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-token-0123' },
      { authorization: app.token },
    ];
    for (const headers of refused) {
      const res = await post(app, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.json()).toEqual({
        ok: false,
        error: { code: 'unauthorized', message: expect.stringContaining('Bearer') },
      });
    }
    await expect(mcpClient(app, 'not-the-token-0123')).rejects.toThrow();
    // A browser page from an origin that is not allowed is refused even with the token.
    const foreign = await post(app, { authorization: `Bearer ${app.token}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    // With the token: stateless, so GET (a standalone stream) is 405, POST answers.
    const get = await fetch(`${app.url}/mcp`, { headers: { authorization: `Bearer ${app.token}` } });
    expect(get.status).toBe(405);
    const listed = await post(app, { authorization: `Bearer ${app.token}` });
    expect(listed.status).toBe(200);
    const huge = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${app.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: 'x'.repeat(5 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(app.runtime.store.lastSequence()).toBe(before);
  });

  it('a malformed input or an unknown tool is a typed tool error and changes nothing', async () => {
    const app = await baton();
    const client = await mcpClient(app);
    const before = app.runtime.store.lastSequence();
    const ws = workspace();
    expect(await call(client, 'thread_start', { text: 'no cwd' })).toEqual({
      isError: true,
      value: {
        code: 'invalid_payload',
        message: expect.stringMatching(/^thread_start input is invalid: cwd/),
        details: { issues: [expect.objectContaining({ path: 'cwd' })] },
      },
    });
    expect(await call(client, 'thread_send', { threadId: 'thr_x', text: 'hi', mode: 'sideways' })).toMatchObject({
      isError: true,
      value: { code: 'invalid_payload', details: { issues: [expect.objectContaining({ path: 'mode' })] } },
    });
    expect(await call(client, 'thread_start', { cwd: ws, text: 'hi', clientRequestId: 'has:colon' })).toMatchObject({
      isError: true,
      value: { code: 'invalid_payload' },
    });
    expect(await call(client, 'create_threads', { threads: [{ cwd: ws, surprise: true }] })).toMatchObject({
      isError: true,
      value: { code: 'invalid_payload' },
    });
    expect(await call(client, 'thread_levitate', {})).toMatchObject({ isError: true, value: { code: 'not_found' } });
    // Baton's own refusals travel the same way.
    expect(await call(client, 'thread_start', { cwd: 'relative/path', text: 'hi' })).toMatchObject({
      isError: true,
      value: { code: 'invalid_payload' },
    });
    expect(await call(client, 'thread_send', { threadId: 'thr_nope', text: 'hi' })).toMatchObject({
      isError: true,
      value: { code: 'not_found' },
    });
    expect(await call(client, 'thread_read', { threadId: 'thr_nope' })).toMatchObject({
      isError: true,
      value: { code: 'not_found', message: 'no thread thr_nope' },
    });
    expect(app.runtime.store.lastSequence()).toBe(before);
  });

  it('a retried call with the same clientRequestId returns the first result and creates nothing new', async () => {
    const app = await scripted([{ kind: 'text', text: 'One.' }]);
    const client = await mcpClient(app);
    const ws = workspace();
    const created = await ok(client, 'create_threads', {
      threads: [{ cwd: ws, title: 'a' }, { cwd: 'relative' }],
      clientRequestId: 'create-1',
    });
    expect(created.threads).toMatchObject([
      { ok: true, threadId: expect.any(String) },
      { ok: false, error: { code: 'invalid_payload' } },
    ]);
    expect(
      await ok(client, 'create_threads', { threads: [{ cwd: ws, title: 'a' }], clientRequestId: 'create-1' }),
    ).toEqual({ threads: [created.threads[0]] });
    const threadId: string = created.threads[0].threadId;

    const send = { threadId, text: 'once', clientRequestId: 'send-1' };
    const first = await ok(client, 'thread_send', send);
    const retried = await ok(client, 'thread_send', send);
    expect(retried).toEqual(first);
    expect(app.runtime.store.projections.list('runs', threadId)).toHaveLength(1);
    expect(app.runtime.store.outbox.list({ threadId }).filter((e) => e.kind === 'provider.turn.start')).toHaveLength(1);
    await ok(client, 'thread_wait', { threadId, runId: first.runId });

    // thread_start's two commands (create, send) are each answered from their receipt.
    const start = { cwd: ws, text: 'again', clientRequestId: 'start-1' };
    const startedOnce = await ok(client, 'thread_start', start);
    expect(await ok(client, 'thread_start', start)).toEqual(startedOnce);
    expect(app.runtime.store.projections.list('threads')).toHaveLength(2);
    expect(app.runtime.store.projections.list('runs', startedOnce.threadId)).toHaveLength(1);
    await ok(client, 'thread_wait', { threadId: startedOnce.threadId });
    // A retry sent while the first call is still in flight is answered the same way.
    const racing = { cwd: ws, text: 'twice at once', clientRequestId: 'start-2' };
    const [one, two] = await Promise.all([ok(client, 'thread_start', racing), ok(client, 'thread_start', racing)]);
    expect(two).toEqual(one);
    expect(app.runtime.store.projections.list('threads')).toHaveLength(3);
    expect(app.runtime.store.projections.list('runs', one.threadId)).toHaveLength(1);
    await ok(client, 'thread_wait', { threadId: one.threadId });
  }, 60_000);

  it('thread_interrupt ends a hanging run interrupted, and thread_wait reports it', async () => {
    const app = await scripted([{ kind: 'hang' }]);
    const client = await mcpClient(app);
    const running = nextEvent(
      app,
      (e) => e.type === 'run.status-changed' && (e.payload as { to: string }).to === 'running',
    );
    const started = await ok(client, 'thread_start', { cwd: workspace(), text: 'take your time' });
    await running;
    const pending = await ok(client, 'thread_wait', { threadId: started.threadId, timeoutMs: 0 });
    expect(pending).toMatchObject({ done: false, timedOut: true, run: { runId: started.runId, status: 'running' } });

    const interrupted = await ok(client, 'thread_interrupt', { threadId: started.threadId, clientRequestId: 'stop-1' });
    expect(interrupted).toEqual({ runId: started.runId, holdQueue: false });
    const waited = await ok(client, 'thread_wait', { threadId: started.threadId, runId: started.runId });
    expect(waited).toMatchObject({ done: true, run: { runId: started.runId, status: 'interrupted' } });
    // The retry answers as the first call did, though the run has ended since.
    expect(await ok(client, 'thread_interrupt', { threadId: started.threadId, clientRequestId: 'stop-1' })).toEqual(
      interrupted,
    );
  }, 60_000);

  it('a thread_wait in flight reports progress, answers typed when Baton stops, and Baton stops at once', async () => {
    const data = tempDir('baton-mcp-');
    onCleanup(data.cleanup);
    const app = await startBaton(
      loadConfig({}, { dataDir: data.dir, port: 0, token: 'test-token-0123456789', model: 'scripted' }),
      pino({ level: 'silent' }),
      { responder: () => ({ kind: 'hang' }) },
    );
    const client = await mcpClient(app);
    const running = nextEvent(
      app,
      (e) => e.type === 'run.status-changed' && (e.payload as { to: string }).to === 'running',
    );
    const ws = workspace();
    const started = await ok(client, 'thread_start', { cwd: ws, text: 'hang' });
    await running;
    const progress: string[] = [];
    let waitBegan!: () => void;
    const began = new Promise<void>((resolve) => (waitBegan = resolve));
    const waiting = client.callTool(
      { name: 'thread_wait', arguments: { threadId: started.threadId, timeoutMs: 600_000 } },
      undefined,
      { timeout: 600_000, onprogress: (p) => (progress.push(p.message ?? ''), waitBegan()) },
    );
    await began;
    expect(progress).toEqual([`run ${started.runId} is running`]);
    const stopping = Date.now();
    await app.stop();
    expect(Date.now() - stopping).toBeLessThan(20_000);
    // Its Codex is gone with it before the data dir is removed (an exiting agent may still write there).
    await until(() => processesIn(['codex'], ws).length === 0, 'the Codex of the stopped Baton to be gone', 5_000);
    expect(await waiting).toMatchObject({
      isError: true,
      structuredContent: { code: 'invalid_transition', message: expect.stringMatching(/^Baton is stopping/) },
    });
  }, 60_000);
});
