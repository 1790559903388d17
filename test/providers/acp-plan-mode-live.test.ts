import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessagesRequest } from '../../src/providers/model/scripted-messages-server.js';
import { useLiveAcp } from '../support/live-acp.js';
import type { Harness } from '../support/runtime.js';
import { planFileOf } from './claude-model.js';

/**
 * Plan mode's end on ACP, live: claude-agent-acp against the scripted Messages-API model and
 * codex-acp against the scripted Responses-API model. In a plan-mode thread the agent's ask
 * to leave plan mode is a proposed plan, answered "keep planning" by Baton; the user's next
 * message in `default` mode implements it. Outside plan mode that ask stays an approval.
 * Structured questions reach Baton from neither agent (measured here; docs/acp.md).
 */
const acp = useLiveAcp();

/** claude-agent-acp writes through its ACP-backed Write tool where it offers it. */
const writeTool = (request: MessagesRequest): string =>
  (request.body.tools ?? []).map((t) => t.name).find((n) => n === 'mcp__acp__Write') ?? 'Write';

const PLAN = '# Add a greeting\n\n1. Write hello.txt\n';
const writesPlan = (request: MessagesRequest) =>
  ({
    kind: 'tool_use',
    name: writeTool(request),
    id: 'toolu_planfile',
    input: { file_path: planFileOf(request), content: PLAN },
  }) as const;

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;
const requests = (h: Harness, threadId: string) => h.store.projections.list('requests', threadId);
const plans = (h: Harness, threadId: string) => h.store.projections.list('plans', threadId);
const nodeTitles = (h: Harness, threadId: string) =>
  h.store.projections.list('graph_nodes', threadId).map((n) => n.title);
async function ok(h: Harness, command: Record<string, unknown>): Promise<void> {
  const ack = await h.command(command);
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
}

describe('ACP plan mode, live', () => {
  it(
    'claude-agent-acp: a plan thread proposes its plan and keeps planning; the next message in default mode implements it',
    { timeout: 120_000 },
    async () => {
      const { h, cwd, messages } = await acp.setup();
      messages.enqueue(
        writesPlan,
        { kind: 'tool_use', name: 'ExitPlanMode', id: 'toolu_exitplan', input: {} },
        { kind: 'text', text: 'Here is my plan.' },
        (request) => ({
          kind: 'tool_use',
          name: writeTool(request),
          id: 'toolu_hello',
          input: { file_path: join(cwd, 'hello.txt'), content: 'hello\n' },
        }),
        { kind: 'text', text: 'Implemented.' },
      );
      const threadId = await h.thread({
        threadId: 'thr_acp_plan',
        cwd,
        provider: 'acp',
        acpAgent: 'claude-agent-acp',
        interactionMode: 'plan',
      });
      const one = await h.send(threadId, 'plan a greeting');
      await h.until(() => h.ended(one));
      expect(status(h, one)).toBe('completed');
      expect(plans(h, threadId)).toMatchObject([{ kind: 'proposed_plan', final: true, text: PLAN, runId: one }]);
      // Baton answered the ask itself: no request, no "Ready to code?" node, the agent still plans.
      expect(requests(h, threadId)).toEqual([]);
      expect(nodeTitles(h, threadId)).not.toContain('Ready to code?');
      expect(h.store.projections.get('threads', threadId)!.agentMode).toEqual({ id: 'plan', name: 'Plan Mode' });
      expect(existsSync(join(cwd, 'hello.txt'))).toBe(false);
      // The agent told its model the exit was refused, and the model ended the turn.
      expect(JSON.stringify(messages.messageRequests[2]!.body.messages.at(-1))).toContain(
        'User rejected request to exit plan mode.',
      );

      await ok(h, { type: 'thread.settings.update', threadId, interactionMode: 'default' });
      const two = await h.send(threadId, 'implement the plan');
      await h.until(() => h.ended(two));
      expect(status(h, two)).toBe('completed');
      expect(existsSync(join(cwd, 'hello.txt'))).toBe(true);
      // Same session: the implementing turn's model request carries the plan, under workspace_write's mode.
      expect(JSON.stringify(messages.messageRequests[3]!.body.messages)).toContain('1. Write hello.txt');
      expect(h.store.projections.get('threads', threadId)!.agentMode).toEqual({
        id: 'acceptEdits',
        name: 'Accept Edits',
      });
      expect(plans(h, threadId)).toHaveLength(1);
    },
  );

  it(
    'claude-agent-acp outside plan mode: the plan mode it entered itself ends with an approval, as before',
    { timeout: 120_000 },
    async () => {
      const { h, cwd, messages } = await acp.setup();
      messages.enqueue(
        { kind: 'tool_use', name: 'EnterPlanMode', id: 'toolu_enter', input: {} },
        writesPlan,
        { kind: 'tool_use', name: 'ExitPlanMode', id: 'toolu_exitplan', input: {} },
        { kind: 'text', text: 'Planned; leaving plan mode.' },
      );
      const threadId = await h.thread({
        threadId: 'thr_acp_own_plan',
        cwd,
        provider: 'acp',
        acpAgent: 'claude-agent-acp',
      });
      const one = await h.send(threadId, 'plan it yourself');
      await h.until(() => requests(h, threadId).some((r) => r.status === 'pending'));
      const ask = requests(h, threadId)[0]!;
      expect(ask).toMatchObject({ kind: 'dynamic_tool_call', prompt: 'Ready to code?' });
      expect(ask.details.toolKind).toBe('switch_mode');
      expect(h.store.projections.get('threads', threadId)!.agentMode).toEqual({ id: 'plan', name: 'Plan Mode' });
      await ok(h, { type: 'runtime-request.respond', requestId: ask.id, decision: 'accept' });
      await h.until(() => h.ended(one));
      expect(status(h, one)).toBe('completed');
      expect(plans(h, threadId)).toEqual([]);
      expect(h.store.projections.get('threads', threadId)!.agentMode).toEqual({ id: 'default', name: 'Default' });
    },
  );

  it(
    "neither agent asks structured questions over ACP: claude-agent-acp disables AskUserQuestion, codex-acp's request_user_input is unavailable outside plan mode",
    { timeout: 120_000 },
    async () => {
      const { h, cwd, messages, responses } = await acp.setup();
      const question = {
        question: 'Which language should I use?',
        header: 'Language',
        options: [
          { label: 'TypeScript', description: 'typed' },
          { label: 'Rust', description: 'fast' },
        ],
      };
      messages.enqueue(
        {
          kind: 'tool_use',
          name: 'AskUserQuestion',
          id: 'toolu_ask',
          input: { questions: [{ ...question, multiSelect: false }] },
        },
        { kind: 'text', text: 'No questions then.' },
      );
      responses.enqueue(
        { kind: 'questions', questions: [{ id: 'lang', ...question }] },
        { kind: 'text', text: 'Fine.' },
      );

      const claude = await h.thread({
        threadId: 'thr_acp_ask_claude',
        cwd,
        provider: 'acp',
        acpAgent: 'claude-agent-acp',
      });
      const one = await h.send(claude, 'ask me');
      await h.until(() => h.ended(one));
      expect(status(h, one)).toBe('completed');
      expect(requests(h, claude)).toEqual([]);
      expect((messages.messageRequests[0]!.body.tools ?? []).map((t) => t.name)).not.toContain('AskUserQuestion');
      expect(JSON.stringify(messages.messageRequests[1]!.body.messages.at(-1))).toContain(
        'No such tool available: AskUserQuestion. AskUserQuestion is disabled for this session',
      );

      const codex = await h.thread({ threadId: 'thr_acp_ask_codex', cwd, provider: 'acp', acpAgent: 'codex-acp' });
      const two = await h.send(codex, 'ask me');
      await h.until(() => h.ended(two));
      expect(status(h, two)).toBe('completed');
      expect(requests(h, codex)).toEqual([]);
      // codex-acp offers the tool to its model, and Codex refuses it in the only collaboration mode codex-acp runs.
      expect(JSON.stringify(responses.requests[0]!.body.tools)).toContain('request_user_input');
      expect(JSON.stringify(responses.requests[1]!.body.input)).toContain(
        'request_user_input is unavailable in Default mode',
      );
    },
  );
});
