import { describe, expect, it } from 'vitest';
import { elicitationReply } from '../../src/providers/codex/codex-elicitation.js';
import { formQuestions, McpForm } from '../../src/providers/mcp-forms.js';
import { CodexNormalizer } from '../../src/providers/codex/codex-normalizer.js';
import { codexReply } from '../../src/providers/codex/codex-replies.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { NodeId, ProviderSessionId, RunAttemptId, RunId, ThreadId } from '../../src/domain/ids.js';

/**
 * An MCP server's form as Codex passes it on, read on its own: its fields as questions and
 * the reply to it. The real Codex and a real MCP server ask one in test/server/mcp-elicitation.test.ts.
 */
const schema = McpForm.parse({
  type: 'object',
  properties: {
    plan: { type: 'string', title: 'Plan', enum: ['free', 'pro'], enumNames: ['Free', 'Pro'] },
    seats: { type: 'number', description: 'How many seats' },
    tags: { type: 'array', items: { anyOf: [{ const: 't1', title: 'Tag one' }] } },
    ok: { type: 'boolean' },
    note: { type: 'string', format: 'email' },
  },
  required: ['plan'],
});

describe('an MCP form (Codex mcpServer/elicitation/request)', () => {
  it('its fields are questions: choices by their titles, yes/no for a boolean, a number for a number', () => {
    const qs = formQuestions(schema);
    expect(qs.map((q) => [q.id, q.header, q.question, q.options?.map((o) => o.label) ?? null, q.isOther])).toEqual([
      ['plan', 'Plan', 'Plan', ['Free', 'Pro'], false],
      ['seats', 'seats', 'How many seats', null, true],
      ['tags', 'tags', 'tags', ['Tag one'], false],
      ['ok', 'ok', 'ok', ['Yes', 'No'], false],
      ['note', 'note', 'note', null, true],
    ]);
    expect(qs.map((q) => [q.required, q.multiple, q.answerType ?? null])).toEqual([
      [true, false, null],
      [false, false, 'number'],
      [false, true, null],
      [false, false, null],
      [false, false, null],
    ]);
  });

  it('answers go back as the form asks (values, not titles; numbers; booleans; lists); a decline or cancel as such', () => {
    expect(
      elicitationReply(schema, null, { plan: 'Pro', seats: '2.5', tags: ['Tag one'], ok: 'No', note: 'a@b.c' }),
    ).toEqual({
      action: 'accept',
      content: { plan: 'pro', seats: 2.5, tags: ['t1'], ok: false, note: 'a@b.c' },
      _meta: null,
    });
    expect(elicitationReply(schema, null, { plan: 'Free' })).toMatchObject({ content: { plan: 'free' } });
    expect(elicitationReply(schema, 'decline', null)).toEqual({ action: 'decline', content: null, _meta: null });
    expect(elicitationReply(schema, 'cancel', null)).toEqual({ action: 'cancel', content: null, _meta: null });
  });

  it("declined, the agent's own questions get no answers, and a form its decline (the replies Codex is sent)", () => {
    expect(codexReply({ method: 'item/tool/requestUserInput' }, 'decline', null)).toEqual({ answers: {} });
    expect(codexReply({ method: 'mcpServer/elicitation/request', form: schema }, 'cancel', null)).toMatchObject({
      action: 'cancel',
    });
  });

  it("a request Baton does not ask (OpenAI's own mode, a URL that is not a web address, another thread, no turn) is left to the adapter to refuse", () => {
    const n = new CodexNormalizer({
      threadId: ThreadId.parse('thr_form'),
      sessionId: ProviderSessionId.parse('psess_form'),
      ids: new SequentialIds('f'),
    });
    n.nativeThreadId = 'native-1';
    const form = {
      threadId: 'native-1',
      turnId: 'turn-1',
      serverName: 's',
      mode: 'form',
      _meta: null,
      message: 'm',
      requestedSchema: { type: 'object', properties: {} },
    };
    const url = {
      threadId: 'native-1',
      turnId: 'turn-1',
      serverName: 's',
      mode: 'url',
      _meta: null,
      message: 'm',
      url: 'http://127.0.0.1:1/',
      elicitationId: 'e',
    };
    n.pendingStart = {
      runId: RunId.parse('run_f'),
      attemptId: RunAttemptId.parse('att_f'),
      rootNodeId: NodeId.parse('node_f'),
    };
    const refused = [
      { ...form, mode: 'openai/form', requestedSchema: {} },
      { ...url, url: 'javascript:alert(1)' },
      { ...form, threadId: 'native-child' },
      { ...form, turnId: null },
    ];
    for (const params of refused) expect(n.serverRequest(1, 'mcpServer/elicitation/request', params)).toEqual([]);
    expect(n.unknown).toBe(4);
    // On a turn of ours, a web address to open is asked as an approval to open it.
    expect(n.serverRequest(2, 'mcpServer/elicitation/request', url)).toMatchObject([
      { type: 'request.opened', kind: 'auth_refresh', prompt: 'm', details: { url: 'http://127.0.0.1:1/' } },
    ]);
  });
});
