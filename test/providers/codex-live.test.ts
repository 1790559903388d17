import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { tempDir } from '../support/temp.js';

/**
 * The real `codex app-server` (pinned @openai/codex) against Baton's scripted model on
 * 127.0.0.1: command -> outbox -> Codex -> normalized events -> durable projections.
 */
const model = new ScriptedModelServer();
const data = tempDir('baton-codex-');
let codex: CodexProvider | null = null;
const open = useRuntime({
  checkpoints: new CheckpointStore({ root: join(data.dir, 'checkpoints') }),
  handlers: (runtime) => (codex = new CodexProvider(runtime, { endpoint: { baseUrl: model.baseUrl, model: 'gpt-5.1-codex', streamIdleTimeoutMs: 5_000 }, dataDir: data.dir })).handlers(),
});

beforeAll(async () => {
  await model.start();
});
afterEach(() => {
  codex?.stopAll('SIGKILL');
  model.reset();
});
afterAll(async () => {
  await model.stop();
  data.cleanup();
});

async function thread(h: Harness) {
  const ws = tempDir('baton-codex-ws-');
  afterAll(ws.cleanup);
  return h.thread({ cwd: ws.dir });
}

async function send(h: Harness, threadId: string, text: string, dispatchMode?: string): Promise<string> {
  const ack = (await h.command({ type: 'thread.message.send', threadId, text, ...(dispatchMode ? { dispatchMode } : {}) })) as { ok: boolean; result: { runId: string } };
  expect(ack.ok).toBe(true);
  return ack.result.runId;
}

const runStatus = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;

describe('Codex, live', () => {
  it('simple: one run, one root node, one provider turn, one assistant message, one root checkpoint', async () => {
    const h = open();
    model.enqueue({ kind: 'text', text: 'Hello from Codex, offline.' });
    const threadId = await thread(h);
    const runId = await send(h, threadId, 'say hello');
    await h.until(() => runStatus(h, runId) === 'completed');

    const run = h.store.projections.get('runs', runId)!;
    expect(run).toMatchObject({ ordinal: 1, status: 'completed' });
    expect(run.attempts).toHaveLength(1);
    const nodes = h.store.projections.list('graph_nodes', threadId);
    expect(nodes.filter((n) => n.kind === 'root_turn')).toHaveLength(1);
    expect(h.store.bindings.forApp(run.attempts[0]!.id)).toHaveLength(1);
    const assistant = h.store.projections.list('messages', threadId).filter((m) => m.role === 'assistant');
    expect(assistant.map((m) => [m.text, m.completed])).toEqual([['Hello from Codex, offline.', true]]);
    const checkpoints = h.store.projections.list('checkpoints', threadId).filter((c) => c.scopeKind === 'root_run' && c.runOrdinal === 1);
    expect(checkpoints).toHaveLength(1);
    expect(h.store.projections.get('threads', threadId)!.activeProviderThreadId).toBeTruthy();
  }, 60_000);

  it('multi_turn: the follow-up is run 2 on the same Codex thread', async () => {
    const h = open();
    model.enqueue({ kind: 'text', text: 'First answer.' }, { kind: 'text', text: 'Second answer.' });
    const threadId = await thread(h);
    const one = await send(h, threadId, 'first');
    await h.until(() => runStatus(h, one) === 'completed');
    const two = await send(h, threadId, 'second');
    await h.until(() => runStatus(h, two) === 'completed');
    expect(h.store.projections.get('runs', two)).toMatchObject({ ordinal: 2 });
    const texts = h.store.projections.list('messages', threadId).map((m) => `${m.role}:${m.text}`);
    expect(texts).toEqual(['user:first', 'assistant:First answer.', 'user:second', 'assistant:Second answer.']);
    // The second request to the model carried the first exchange: same native thread.
    const lastInput = JSON.stringify(model.requests.at(-1)!.body.input);
    expect(lastInput).toContain('First answer.');
  }, 60_000);

  it('approval_request: an escalated command asks; accept runs it and the run completes', async () => {
    const h = open();
    model.enqueue({ kind: 'exec', command: 'echo approved-run > proof.txt', escalated: true }, { kind: 'text', text: 'Done.' });
    const threadId = await thread(h);
    const runId = await send(h, threadId, 'write the proof');
    await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
    expect(runStatus(h, runId)).toBe('waiting');
    const request = h.store.projections.list('requests', threadId)[0]!;
    expect(request).toMatchObject({ kind: 'command', responseCapability: { type: 'live' } });
    expect(await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' })).toMatchObject({ ok: true });
    await h.until(() => runStatus(h, runId) === 'completed');
    expect(h.store.projections.get('requests', request.id)).toMatchObject({ status: 'resolved' });
    const tools = h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'tool_call');
    expect(tools.map((n) => n.status)).toContain('completed');
  }, 60_000);

  it('turn_interrupt: the interrupt answer is only acknowledged; turn/completed interrupted ends the run', async () => {
    const h = open();
    model.enqueue({ kind: 'hang', text: 'thinking' });
    const threadId = await thread(h);
    const runId = await send(h, threadId, 'take your time');
    await h.until(() => runStatus(h, runId) === 'running');
    await model.waitForRequests(1);
    expect(await h.command({ type: 'run.interrupt', runId })).toMatchObject({ ok: true });
    await h.until(() => runStatus(h, runId) === 'interrupted');
    const types = h.store.events.readThreadAfter(threadId, 0).map((e) => e.type);
    expect(types.indexOf('run.interrupt-acknowledged')).toBeGreaterThan(-1);
    expect(types.indexOf('run.interrupt-acknowledged')).toBeLessThan(types.indexOf('run.terminal'));
  }, 60_000);
});
