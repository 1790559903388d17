import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { ModelTurn } from '../../src/providers/model/scripted-model-server.js';
import { ScriptedMessagesServer } from '../../src/providers/model/scripted-messages-server.js';
import { codexModel } from '../providers/codex-scenarios.js';
import { useInProcessBaton, type InProcessBaton } from '../support/in-process-baton.js';

/**
 * An MCP server's form (`elicitation/create`) reaches the user as questions: the real Codex
 * and the real Claude agent run the user's MCP server (BATON_MCP_SERVERS,
 * test/fixtures/mcp/form-server.mjs), whose tool asks for a form; Baton shows it as a
 * question request under the tool's node, refuses answers that do not fit the form, and
 * sends the form's content back typed as the form asks, or declined. The server's tool
 * result is the reply it got, so the test reads what the agent passed on. Real Baton, real
 * agents, scripted models.
 */
const batons = useInProcessBaton('baton-elicit');
const formServer = fileURLToPath(new URL('../fixtures/mcp/form-server.mjs', import.meta.url));
const env = { BATON_MCP_SERVERS: JSON.stringify({ form: { command: process.execPath, args: [formServer] } }) };
const call = (tool: string): ModelTurn[] =>
  codexModel([
    { kind: 'mcp_call', server: 'form', tool, args: {}, callId: `call_${tool}` },
    { kind: 'text', text: 'Done.' },
  ]);
const book = call('book');
const signin = call('signin');

/**
 * A thread's run that calls the form's tool, up to the form being asked (on Claude, the
 * agent's ask to call the tool granted first): the form's request, where it hangs, and the
 * reply the server got once the run ends.
 */
async function bookingRun(
  b: InProcessBaton,
  provider: 'codex' | 'claude',
  asks: 'user_input' | 'auth_refresh' = 'user_input',
) {
  const store = b.app.runtime.store;
  const cwd = batons.folders.make('baton-elicit-ws-');
  const { threadId } = await b.ok<{ threadId: string }>({ type: 'thread.create', cwd, provider });
  if (provider === 'codex') b.turns.push(...(asks === 'user_input' ? book : signin));
  const { runId } = await b.ok<{ runId: string }>({ type: 'thread.message.send', threadId, text: 'book a stay' });
  const pending = () => store.projections.list('requests', threadId).find((r) => r.status === 'pending');
  if (provider === 'claude') {
    // Claude asks before it calls an MCP server's tool.
    await b.until(() => pending() !== undefined, 'the ask to call the tool');
    await b.ok({ type: 'runtime-request.respond', requestId: pending()!.id, decision: 'accept' });
  }
  await b.until(() => pending()?.kind === asks, `the server's ${asks} request`);
  const request = pending()!;
  const nodes = () => store.projections.list('graph_nodes', threadId);
  const node = nodes().find((x) => x.id === request.nodeId);
  const tool = () => nodes().find((x) => x.kind === 'tool_call' && x.runId === runId);
  return {
    request,
    parent: nodes().find((x) => x.id === node?.parentNodeId),
    asked: store.projections.list('plans', threadId).find((p) => p.kind === 'questions' && p.nodeId === request.nodeId),
    respond: (answer: Record<string, unknown>) =>
      b.command({ type: 'runtime-request.respond', requestId: request.id, ...answer }),
    ended: () => b.until(() => store.projections.get('runs', runId)?.status === 'completed', 'the run to end'),
    /** What the server was sent, as its tool answered. */
    reply: (): unknown => {
      const content = (tool()?.detail?.result as { content?: { text?: string }[] } | undefined)?.content;
      return JSON.parse((content?.[0]?.text ?? '').replace(/^reply: /, ''));
    },
  };
}

describe("an MCP server's form (elicitation)", () => {
  it('through the real Codex: asked as questions under the tool call; answers that do not fit are refused; the fitting ones go back typed', async () => {
    const b = await batons.start(env);
    const store = b.app.runtime.store;
    const run = await bookingRun(b, 'codex');
    expect(run.request).toMatchObject({ kind: 'user_input', prompt: 'Book a stay' });
    expect(run.parent).toMatchObject({ kind: 'tool_call', title: 'form/book' });
    const asked = run.asked;
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
    const before = store.lastSequence();
    const unfit: [Record<string, string | string[]>, RegExp][] = [
      [{ region: 'Mars', nights: '2' }, /not one of the options/],
      [{ region: 'US (east)', nights: 'two' }, /whole number/],
      [{ region: 'US (east)' }, /must be answered/],
      [{ region: ['Europe (west)', 'US (east)'], nights: '2' }, /takes one answer/],
      [{ region: 'US (east)', nights: '2', pool: 'yes' }, /no question was asked with the id 'pool'/],
    ];
    for (const [answers, says] of unfit)
      expect(await run.respond({ answers }), JSON.stringify(answers)).toMatchObject({
        ok: false,
        error: { code: 'invalid_payload', message: expect.stringMatching(says) },
      });
    expect(store.lastSequence()).toBe(before);

    const answers = { region: 'Europe (west)', nights: '3', breakfast: 'Yes', extras: ['parking', 'late checkout'] };
    expect(await run.respond({ answers })).toMatchObject({ ok: true });
    await run.ended();
    expect(run.reply()).toEqual({
      action: 'accept',
      content: { region: 'eu-west', nights: 3, breakfast: true, extras: ['parking', 'late checkout'] },
    });
    expect(store.projections.get('requests', run.request.id)).toMatchObject({ status: 'resolved' });
  }, 120_000);

  it('declined, the server is told so and the turn goes on; a question needs answers or a decline, not an approval', async () => {
    const run = await bookingRun(await batons.start(env), 'codex');
    for (const wrong of [{ decision: 'accept' }, { decision: 'decline', answers: { nights: '1' } }, {}])
      expect(await run.respond(wrong)).toMatchObject({ ok: false, error: { code: 'invalid_command' } });
    expect(await run.respond({ decision: 'decline' })).toMatchObject({ ok: true });
    await run.ended();
    expect(run.reply()).toMatchObject({ action: 'decline' });
  }, 120_000);

  it("through the real Claude agent too: asked under its tool call (in the server's order), answered, sent back typed", async () => {
    const model = await new ScriptedMessagesServer(undefined, {
      isSideRequest: (r) => r.body.max_tokens === 1,
    }).start();
    batons.onCleanup(() => model.stop());
    model.enqueue(
      { kind: 'tool_use', name: 'mcp__form__book', id: 'toolu_book', input: {} },
      { kind: 'text', text: 'Booked.' },
    );
    // Codex's offline model stays; Claude's is the test's.
    const run = await bookingRun(await batons.start(env, { claudeBaseUrl: model.baseUrl }), 'claude');
    expect(run.request.prompt).toBe('Book a stay');
    expect(run.parent).toMatchObject({ kind: 'tool_call', title: 'form/book' });
    expect(run.asked?.questions?.map((q) => q.id)).toEqual(['region', 'nights', 'breakfast', 'extras', 'note']);
    const answers = { region: 'US (east)', nights: '2', breakfast: 'No', extras: ['parking'] };
    expect(await run.respond({ answers })).toMatchObject({ ok: true });
    await run.ended();
    expect(run.reply()).toEqual({
      action: 'accept',
      content: { region: 'us-east', nights: 2, breakfast: false, extras: ['parking'] },
    });
  }, 120_000);

  it('a URL to open (URL mode) is an approval to open it, under the tool call: accepted through Codex, declined through Claude', async () => {
    const onCodex = await bookingRun(await batons.start(env), 'codex', 'auth_refresh');
    expect(onCodex.request).toMatchObject({
      kind: 'auth_refresh',
      prompt: 'Sign in to the booking service',
      details: { serverName: 'form', url: 'https://booking.example/signin?session=42', elicitationId: 'signin-42' },
    });
    expect(onCodex.parent).toMatchObject({ kind: 'tool_call', title: 'form/signin' });
    expect(await onCodex.respond({ answers: { x: 'y' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_command' },
    });
    expect(await onCodex.respond({ decision: 'accept' })).toMatchObject({ ok: true });
    await onCodex.ended();
    expect(onCodex.reply()).toMatchObject({ action: 'accept' });

    const model = await new ScriptedMessagesServer(undefined, {
      isSideRequest: (r) => r.body.max_tokens === 1,
    }).start();
    batons.onCleanup(() => model.stop());
    model.enqueue(
      { kind: 'tool_use', name: 'mcp__form__signin', id: 'toolu_signin', input: {} },
      { kind: 'text', text: 'Not signed in.' },
    );
    const onClaude = await bookingRun(
      await batons.start(env, { claudeBaseUrl: model.baseUrl }),
      'claude',
      'auth_refresh',
    );
    expect(onClaude.request).toMatchObject({
      kind: 'auth_refresh',
      details: { url: 'https://booking.example/signin?session=42' },
    });
    expect(onClaude.parent).toMatchObject({ kind: 'tool_call', title: 'form/signin' });
    expect(await onClaude.respond({ decision: 'decline' })).toMatchObject({ ok: true });
    await onClaude.ended();
    expect(onClaude.reply()).toMatchObject({ action: 'decline' });
  }, 120_000);
});
