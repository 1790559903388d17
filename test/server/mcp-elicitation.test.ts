import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import { loadConfig } from '../../src/config.js';
import type { ModelTurn } from '../../src/providers/model/scripted-model-server.js';
import { codexModel } from '../providers/codex-scenarios.js';
import { ScriptedMessagesServer } from '../../src/providers/model/scripted-messages-server.js';
import { TempFolders } from '../support/temp.js';

/**
 * An MCP server's form (`elicitation/create`) reaches the user as questions: the real Codex
 * (and the real Claude agent) runs the user's MCP server (BATON_MCP_SERVERS, test/fixtures/mcp/form-server.mjs), whose
 * tool asks for a form; Baton shows it as a question request under the tool's node, refuses
 * answers that do not fit the form, and sends the form's content back typed as the form asks,
 * or declined. The server's tool result is the reply it got, so the test reads what Codex
 * passed on. Real Baton, real Codex, the scripted Responses model.
 */
const folders = new TempFolders();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  folders.removeAll();
});

const formServer = fileURLToPath(new URL('../fixtures/mcp/form-server.mjs', import.meta.url));
const book: ModelTurn[] = codexModel([
  { kind: 'mcp_call', server: 'form', tool: 'book', args: {}, callId: 'call_book' },
  { kind: 'text', text: 'Booked.' },
]);

async function baton(claudeBaseUrl?: string): Promise<{ app: BatonApp; turns: ModelTurn[] }> {
  const env = { BATON_MCP_SERVERS: JSON.stringify({ form: { command: process.execPath, args: [formServer] } }) };
  const config = loadConfig(env, {
    dataDir: folders.make('baton-elicit-'),
    port: 0,
    token: 'elicitation-test-token-0123456789',
    // Codex's offline model (scripted below); Claude's is the test's when it gives one.
    ...(claudeBaseUrl ? { claudeBaseUrl } : { model: 'scripted' }),
  });
  const turns: ModelTurn[] = [];
  const app = await startBaton(config, pino({ level: 'silent' }), {
    responder: () => turns.shift() ?? { kind: 'text', text: 'ok' },
  });
  cleanups.push(() => app.stop());
  return { app, turns };
}

/** Resolves once `condition` holds, checked after each committed batch of events. */
function when(app: BatonApp, condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (off(), reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
    const check = () => {
      if (!condition()) return;
      clearTimeout(timer);
      off();
      resolve();
    };
    const off = app.runtime.onEvents(check);
    check();
  });
}

let n = 0;
const command = (app: BatonApp, cmd: Record<string, unknown>) =>
  app.runtime.dispatch({ commandId: `cmd_elicit_${++n}`, ...cmd });

async function newThread(app: BatonApp): Promise<string> {
  const created = await command(app, { type: 'thread.create', cwd: folders.make('baton-elicit-ws-') });
  if (!created.ok) throw new Error(JSON.stringify(created.error));
  return (created.result as { threadId: string }).threadId;
}

async function bookingRun(app: BatonApp, turns: ModelTurn[], threadId: string) {
  turns.push(...book);
  const sent = await command(app, { type: 'thread.message.send', threadId, text: 'book a stay' });
  if (!sent.ok) throw new Error(JSON.stringify(sent.error));
  const runId = (sent.result as { runId: string }).runId;
  const store = app.runtime.store;
  const pending = () => store.projections.list('requests', threadId).find((r) => r.status === 'pending');
  await when(app, () => pending() !== undefined, 'the form to be asked');
  const request = pending()!;
  const reply = () => {
    const tool = store.projections
      .list('graph_nodes', threadId)
      .find((x) => x.kind === 'tool_call' && x.runId === runId);
    const content = (tool?.detail?.result as { content?: { text?: string }[] } | undefined)?.content;
    return content?.[0]?.text ?? null;
  };
  const ended = () => when(app, () => store.projections.get('runs', runId)?.status === 'completed', 'the run to end');
  return { runId, request, reply, ended };
}

describe("an MCP server's form (elicitation), through the real Codex", () => {
  it('is asked as questions under the tool call; answers that do not fit are refused; the fitting ones go back typed', async () => {
    const { app, turns } = await baton();
    const threadId = await newThread(app);
    const { request, reply, ended } = await bookingRun(app, turns, threadId);
    const store = app.runtime.store;

    expect(request).toMatchObject({ kind: 'user_input', prompt: 'Book a stay' });
    const tool = store.projections.list('graph_nodes', threadId).find((x) => x.id === request.nodeId);
    const parent = store.projections.list('graph_nodes', threadId).find((x) => x.id === tool?.parentNodeId);
    expect(parent).toMatchObject({ kind: 'tool_call', title: 'form/book' });
    const asked = store.projections.list('plans', threadId).find((p) => p.kind === 'questions');
    // In Codex's order: it hands the form on with its fields sorted by name.
    expect(asked?.questions).toEqual([
      {
        id: 'breakfast',
        header: 'Breakfast',
        question: 'Breakfast',
        options: [
          { label: 'Yes', description: '' },
          { label: 'No', description: '' },
        ],
        isOther: false,
        isSecret: false,
        required: false,
        multiple: false,
      },
      {
        id: 'extras',
        header: 'Extras',
        question: 'Extras',
        options: [
          { label: 'parking', description: '' },
          { label: 'late checkout', description: '' },
        ],
        isOther: false,
        isSecret: false,
        required: false,
        multiple: true,
      },
      {
        id: 'nights',
        header: 'Nights',
        question: 'Nights',
        options: null,
        isOther: true,
        isSecret: false,
        required: true,
        multiple: false,
        answerType: 'integer',
      },
      {
        id: 'note',
        header: 'Note',
        question: 'Note',
        options: null,
        isOther: true,
        isSecret: false,
        required: false,
        multiple: false,
      },
      {
        id: 'region',
        header: 'Region',
        question: 'Where to stay',
        options: [
          { label: 'Europe (west)', description: '' },
          { label: 'US (east)', description: '' },
        ],
        isOther: false,
        isSecret: false,
        required: true,
        multiple: false,
      },
    ]);

    // Answers that do not fit the form are refused, typed, and the form stays asked.
    const respond = (answers: Record<string, string | string[]>) =>
      command(app, { type: 'runtime-request.respond', requestId: request.id, answers });
    const before = store.lastSequence();
    const unfit: [Record<string, string | string[]>, RegExp][] = [
      [{ region: 'Mars', nights: '2' }, /not one of the options/],
      [{ region: 'US (east)', nights: 'two' }, /whole number/],
      [{ region: 'US (east)' }, /must be answered/],
      [{ region: ['Europe (west)', 'US (east)'], nights: '2' }, /takes one answer/],
      [{ region: 'US (east)', nights: '2', pool: 'yes' }, /no question was asked with the id 'pool'/],
    ];
    for (const [answers, says] of unfit) {
      const ack = await respond(answers);
      expect(ack, JSON.stringify(answers)).toMatchObject({
        ok: false,
        error: { code: 'invalid_payload', message: expect.stringMatching(says) },
      });
    }
    expect(store.lastSequence()).toBe(before);

    expect(
      await respond({ region: 'Europe (west)', nights: '3', breakfast: 'Yes', extras: ['parking', 'late checkout'] }),
    ).toMatchObject({ ok: true });
    await ended();
    expect(JSON.parse(reply()!.replace(/^reply: /, ''))).toEqual({
      action: 'accept',
      content: { region: 'eu-west', nights: 3, breakfast: true, extras: ['parking', 'late checkout'] },
    });
    expect(store.projections.get('requests', request.id)).toMatchObject({ status: 'resolved' });
  }, 120_000);

  it('declined, the server is told so and the turn goes on; a question needs answers or a decline, not an approval', async () => {
    const { app, turns } = await baton();
    const threadId = await newThread(app);
    const { request, reply, ended } = await bookingRun(app, turns, threadId);
    for (const wrong of [{ decision: 'accept' }, { decision: 'decline', answers: { nights: '1' } }, {}])
      expect(await command(app, { type: 'runtime-request.respond', requestId: request.id, ...wrong })).toMatchObject({
        ok: false,
        error: { code: 'invalid_command' },
      });
    expect(
      await command(app, { type: 'runtime-request.respond', requestId: request.id, decision: 'decline' }),
    ).toMatchObject({ ok: true });
    await ended();
    expect(JSON.parse(reply()!.replace(/^reply: /, ''))).toMatchObject({ action: 'decline' });
  }, 120_000);

  it('through the real Claude agent too: asked under its tool call, answered, sent back typed', async () => {
    const model = await new ScriptedMessagesServer(undefined, {
      isSideRequest: (r) => r.body.max_tokens === 1,
    }).start();
    cleanups.push(() => model.stop());
    model.enqueue(
      { kind: 'tool_use', name: 'mcp__form__book', id: 'toolu_book', input: {} },
      { kind: 'text', text: 'Booked.' },
    );
    const { app } = await baton(model.baseUrl);
    const created = await command(app, {
      type: 'thread.create',
      cwd: folders.make('baton-elicit-ws-'),
      provider: 'claude',
    });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    const threadId = (created.result as { threadId: string }).threadId;
    const sent = await command(app, { type: 'thread.message.send', threadId, text: 'book a stay' });
    if (!sent.ok) throw new Error(JSON.stringify(sent.error));
    const runId = (sent.result as { runId: string }).runId;
    const store = app.runtime.store;
    const pending = () => store.projections.list('requests', threadId).find((r) => r.status === 'pending');
    // Claude asks before it calls an MCP server's tool; then the server asks its form.
    await when(app, () => pending() !== undefined, 'the ask to call the tool');
    expect(
      await command(app, { type: 'runtime-request.respond', requestId: pending()!.id, decision: 'accept' }),
    ).toMatchObject({ ok: true });
    await when(app, () => pending()?.kind === 'user_input', 'the form to be asked');
    const form = pending()!;
    expect(form.prompt).toBe('Book a stay');
    const parent = store.projections
      .list('graph_nodes', threadId)
      .find(
        (x) => x.id === store.projections.list('graph_nodes', threadId).find((n) => n.id === form.nodeId)?.parentNodeId,
      );
    expect(parent).toMatchObject({ kind: 'tool_call', title: 'form/book' });
    // Claude hands the form on in the server's order.
    const asked = store.projections
      .list('plans', threadId)
      .find((p) => p.kind === 'questions' && p.nodeId === form.nodeId);
    expect(asked?.questions?.map((q) => q.id)).toEqual(['region', 'nights', 'breakfast', 'extras', 'note']);
    expect(
      await command(app, {
        type: 'runtime-request.respond',
        requestId: form.id,
        answers: { region: 'US (east)', nights: '2', breakfast: 'No', extras: ['parking'] },
      }),
    ).toMatchObject({ ok: true });
    await when(app, () => store.projections.get('runs', runId)?.status === 'completed', 'the run to end');
    const tool = store.projections
      .list('graph_nodes', threadId)
      .find((x) => x.kind === 'tool_call' && x.runId === runId);
    const text = (tool?.detail?.result as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text ?? '';
    expect(JSON.parse(text.replace(/^reply: /, ''))).toEqual({
      action: 'accept',
      content: { region: 'us-east', nights: 2, breakfast: false, extras: ['parking'] },
    });
  }, 120_000);
});
