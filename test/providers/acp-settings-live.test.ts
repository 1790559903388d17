import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessagesRequest, MessagesTurn } from '../../src/providers/model/scripted-messages-server.js';
import { useLiveAcp } from '../support/live-acp.js';
import type { Harness } from '../support/runtime.js';

/** Thread settings on the built-in ACP agents: `session/set_model` and `session/set_mode`, live. */
const acp = useLiveAcp();

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;
const requests = (h: Harness, threadId: string) => h.store.projections.list('requests', threadId);
async function ok(h: Harness, command: Record<string, unknown>): Promise<void> {
  const ack = await h.command(command);
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
}

/** claude-agent-acp writes through its ACP-backed Write tool where it offers it. */
const writeTool = (request: MessagesRequest): string =>
  (request.body.tools ?? []).map((t) => t.name).find((n) => n === 'mcp__acp__Write') ?? 'Write';

/** The first request of each turn writes a note in the cwd (named by the count of user messages); the next one answers. */
const writesThen =
  (cwd: () => string) =>
  (request: MessagesRequest): MessagesTurn => {
    const last = request.body.messages.at(-1);
    const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
    const name = `note-${request.body.messages.filter((m) => m.role === 'user').length}.txt`;
    return answered
      ? { kind: 'text', text: 'Done.' }
      : { kind: 'tool_use', name: writeTool(request), input: { file_path: join(cwd(), name), content: 'x' } };
  };

describe('ACP thread settings, live', () => {
  it('claude-agent-acp: a model switch reaches the next model request', { timeout: 60_000 }, async () => {
    const { h, cwd, messages } = await acp.setup();
    const threadId = await h.thread({ threadId: 'thr_acp_model', cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
    const one = await h.send(threadId, 'first');
    await h.until(() => status(h, one) === 'completed');
    const initial = messages.messageRequests.at(-1)!.body.model;
    await ok(h, { type: 'thread.settings.update', threadId, model: 'claude-haiku-4-5' });
    const two = await h.send(threadId, 'second');
    await h.until(() => status(h, two) === 'completed');
    expect(initial).not.toBe('claude-haiku-4-5');
    expect(messages.messageRequests.at(-1)!.body.model).toBe('claude-haiku-4-5');
  });

  it(
    'claude-agent-acp: read_only asks before a write in the cwd, workspace_write (acceptEdits) does not',
    { timeout: 90_000 },
    async () => {
      let ws = '';
      const { h, cwd } = await acp.setup({ claude: writesThen(() => ws) });
      ws = cwd;
      const threadId = await h.thread({
        threadId: 'thr_acp_mode',
        cwd,
        provider: 'acp',
        acpAgent: 'claude-agent-acp',
        runtimeMode: 'read_only',
      });
      const one = await h.send(threadId, 'write a note');
      await h.until(() => requests(h, threadId).some((r) => r.status === 'pending'));
      const asked = requests(h, threadId)[0]!;
      expect(asked.kind).toBe('file_change');
      await ok(h, { type: 'runtime-request.respond', requestId: asked.id, decision: 'accept' });
      await h.until(() => status(h, one) === 'completed');
      expect(existsSync(join(cwd, 'note-1.txt'))).toBe(true);

      await ok(h, { type: 'thread.settings.update', threadId, runtimeMode: 'workspace_write' });
      const two = await h.send(threadId, 'write another');
      await h.until(() => status(h, two) === 'completed');
      expect(readdirSync(cwd).filter((f) => f.startsWith('note-'))).toHaveLength(2);
      expect(requests(h, threadId)).toHaveLength(1);
    },
  );

  it('codex-acp: a model it cannot take is refused at the turn, typed', { timeout: 60_000 }, async () => {
    const { h, cwd, responses } = await acp.setup();
    const threadId = await h.thread({
      threadId: 'thr_acp_codex_model',
      cwd,
      provider: 'acp',
      acpAgent: 'codex-acp',
      model: 'gpt-other',
    });
    const run = await h.send(threadId, 'hello');
    await h.until(() => h.ended(run));
    expect(status(h, run)).toBe('failed');
    expect(JSON.stringify(h.store.projections.get('runs', run))).toContain('session/set_model');
    expect(responses.requests).toHaveLength(0);
  });

  it('codex-acp: runtime modes reach its approval presets', { timeout: 60_000 }, async () => {
    const { h, cwd, responses } = await acp.setup();
    responses.enqueue({ kind: 'text', text: 'one' }, { kind: 'text', text: 'two' });
    const threadId = await h.thread({
      threadId: 'thr_acp_codex_mode',
      cwd,
      provider: 'acp',
      acpAgent: 'codex-acp',
      runtimeMode: 'read_only',
    });
    const one = await h.send(threadId, 'first');
    await h.until(() => status(h, one) === 'completed');
    await ok(h, { type: 'thread.settings.update', threadId, runtimeMode: 'full_access' });
    const two = await h.send(threadId, 'second');
    await h.until(() => status(h, two) === 'completed');
    const [first, second] = responses.requests.map((r) => JSON.stringify(r.body));
    expect(first).toContain('read-only');
    expect(second).toContain('danger-full-access');
  });
});
