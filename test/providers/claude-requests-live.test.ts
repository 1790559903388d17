import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAN_PROPOSED } from '../../src/providers/claude/claude-permissions.js';
import type { MessagesRequest, MessagesResponder } from '../../src/providers/model/scripted-messages-server.js';
import { useLiveClaude } from '../support/live-claude.js';
import { toolResults } from '../support/messages-request.js';
import type { Harness } from '../support/runtime.js';

/**
 * The Claude agent's asks through Baton, live (the real agent, a scripted model): plan mode's
 * ExitPlanMode as a proposed plan, accept for session, and an interrupt while a question waits.
 */
const claude = useLiveClaude();
const setup = (responder?: MessagesResponder) => claude.setup({ responder });

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;
const requests = (h: Harness, threadId: string) => h.store.projections.list('requests', threadId);

/** Plan mode tells the model where its plan file is (`.../plans/<slug>.md`, a new slug per session). */
const planFile = (request: MessagesRequest): string => {
  const path = /create your plan at (\S+\.md) using the Write tool/.exec(JSON.stringify(request.body.messages))?.[1];
  if (!path) throw new Error('the plan-mode request names no plan file');
  return path;
};

/** An AskUserQuestion's input: one question, two options. */
const pickOne = {
  questions: [
    {
      question: 'Which one?',
      header: 'Pick',
      options: [
        { label: 'A', description: 'first' },
        { label: 'B', description: 'second' },
      ],
      multiSelect: false,
    },
  ],
};

describe('Claude asks through Baton, live', () => {
  it(
    "plan mode: the plan ExitPlanMode reads from the agent's plan file is a final proposed plan; Baton answers it and the run completes",
    { timeout: 60_000 },
    async () => {
      const plan = '# Add a greeting\n\n1. Write hello.txt\n2. Check it\n';
      const { h, cwd, model } = await setup((request, index) =>
        index === 0
          ? {
              kind: 'tool_use',
              name: 'Write',
              id: 'toolu_planfile',
              input: { file_path: planFile(request), content: plan },
            }
          : index === 1
            ? { kind: 'tool_use', name: 'ExitPlanMode', id: 'toolu_exitplan', input: {} }
            : { kind: 'text', text: 'The plan is ready for you.' },
      );
      const threadId = await h.thread({ threadId: 'thr_plan_mode', cwd, interactionMode: 'plan' });
      const runId = await h.send(threadId, 'plan a greeting');
      await h.until(() => status(h, runId) === 'completed');

      const plans = h.store.projections.list('plans', threadId);
      expect(plans.map((p) => [p.kind, p.final, p.runId, p.text])).toEqual([['proposed_plan', true, runId, plan]]);
      // Baton answered the agent itself: no request for the user, and the agent was told why.
      expect(requests(h, threadId)).toEqual([]);
      expect(toolResults(model.messageRequests[2]!).find((b) => b.tool_use_id === 'toolu_exitplan')).toMatchObject({
        is_error: true,
        content: expect.stringContaining(PLAN_PROPOSED),
      });
      expect(h.store.projections.list('messages', threadId).at(-1)?.text).toBe('The plan is ready for you.');
      // The plan file is the agent's own (in its config dir), never the workspace; nothing was implemented.
      expect(existsSync(join(cwd, 'hello.txt'))).toBe(false);
      const kinds = h.store.projections.list('activities', threadId).filter((a) => a.kind === 'plan.updated');
      expect(kinds.map((a) => [a.status, a.title])).toEqual([['proposed_plan', plan]]);
    },
  );

  it(
    'accept for session: the same command runs again without asking, another one still asks, and no settings file lands in the workspace',
    { timeout: 60_000 },
    async () => {
      const uses = ['echo one >> log.txt', 'echo one >> log.txt', 'echo two >> log.txt'];
      const { h, cwd } = await setup((_request, index) =>
        index < uses.length
          ? { kind: 'tool_use', name: 'Bash', id: `toolu_session${index}`, input: { command: uses[index]! } }
          : { kind: 'text', text: 'Done.' },
      );
      const threadId = await h.thread({ threadId: 'thr_session', cwd });
      const runId = await h.send(threadId, 'log twice');
      const pending = (n: number) => () => requests(h, threadId).filter((r) => r.status === 'pending').length === n;

      await h.until(pending(1));
      const first = requests(h, threadId)[0]!;
      expect(first.prompt).toBe('echo one >> log.txt');
      await h.command({ type: 'runtime-request.respond', requestId: first.id, decision: 'acceptForSession' });
      await h.until(() => requests(h, threadId).some((r) => r.status === 'pending' && r.id !== first.id));
      const second = requests(h, threadId).find((r) => r.id !== first.id)!;
      // The repeat of the first command was not asked: the next ask is the other command.
      expect(second.prompt).toBe('echo two >> log.txt');
      await h.command({ type: 'runtime-request.respond', requestId: second.id, decision: 'decline' });
      await h.until(() => status(h, runId) === 'completed');

      expect(requests(h, threadId)).toHaveLength(2);
      expect(readFileSync(join(cwd, 'log.txt'), 'utf8')).toBe('one\none\n');
      const tools = h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'tool_call');
      expect(tools.map((n) => [n.title, n.status])).toEqual([
        ['echo one >> log.txt', 'completed'],
        ['echo one >> log.txt', 'completed'],
        ['echo two >> log.txt', 'failed'],
      ]);
      // The agent's rule went to the session, not to `.claude/settings.local.json` in the workspace.
      expect(existsSync(join(cwd, '.claude'))).toBe(false);
    },
  );

  it(
    "TodoWrite is the run's todo list (Baton turns the agent's task tools off), no tool node",
    { timeout: 60_000 },
    async () => {
      const todos = [
        { content: 'read the code', status: 'completed', activeForm: 'Reading the code' },
        { content: 'write the fix', status: 'in_progress', activeForm: 'Writing the fix' },
      ];
      const { h, cwd, model } = await setup((_request, index) =>
        index === 0
          ? { kind: 'tool_use', name: 'TodoWrite', id: 'toolu_todo', input: { todos } }
          : { kind: 'text', text: 'Planned.' },
      );
      const threadId = await h.thread({ threadId: 'thr_todo', cwd });
      const runId = await h.send(threadId, 'plan it');
      await h.until(() => status(h, runId) === 'completed');

      // The agent ran the tool (no permission ask) and said so to the model.
      expect(toolResults(model.messageRequests[1]!).find((b) => b.tool_use_id === 'toolu_todo')).not.toHaveProperty(
        'is_error',
        true,
      );
      const plans = h.store.projections.list('plans', threadId);
      expect(plans.map((p) => [p.kind, p.final, p.runId, p.steps])).toEqual([
        [
          'todo_list',
          true,
          runId,
          [
            { text: 'read the code', status: 'completed' },
            { text: 'write the fix', status: 'in_progress' },
          ],
        ],
      ]);
      expect(h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'tool_call')).toEqual([]);
      expect(requests(h, threadId)).toEqual([]);
    },
  );

  it(
    'an interrupt while a question waits closes its request and ends the run interrupted',
    { timeout: 60_000 },
    async () => {
      const { h, cwd } = await setup(() => ({
        kind: 'tool_use',
        name: 'AskUserQuestion',
        id: 'toolu_wait',
        input: pickOne,
      }));
      const threadId = await h.thread({ threadId: 'thr_ask_interrupt', cwd });
      const runId = await h.send(threadId, 'ask me');
      await h.until(() => requests(h, threadId).some((r) => r.status === 'pending'));
      const request = requests(h, threadId)[0]!;
      expect([request.kind, request.prompt, status(h, runId)]).toEqual(['user_input', 'Which one?', 'waiting']);

      await h.command({ type: 'run.interrupt', runId });
      await h.until(() => status(h, runId) === 'interrupted');
      expect(h.store.projections.get('requests', request.id)!.status).not.toBe('pending');
    },
  );

  it(
    'a declined question: the agent is told the user declined to answer, and the turn goes on',
    { timeout: 60_000 },
    async () => {
      const { h, cwd, model } = await setup((request) =>
        toolResults(request).length
          ? { kind: 'text', text: 'Then I will pick myself.' }
          : {
              kind: 'tool_use',
              name: 'AskUserQuestion',
              id: 'toolu_decline',
              input: pickOne,
            },
      );
      const threadId = await h.thread({ threadId: 'thr_ask_decline', cwd });
      const runId = await h.send(threadId, 'ask me');
      await h.until(() => requests(h, threadId).some((r) => r.status === 'pending'));
      const request = requests(h, threadId)[0]!;
      expect(
        await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'decline' }),
      ).toMatchObject({
        ok: true,
      });
      await h.until(() => status(h, runId) === 'completed');
      expect(h.store.projections.get('requests', request.id)!.status).toBe('resolved');
      const told = toolResults(model.messageRequests.at(-1)!);
      expect(JSON.stringify(told)).toContain('The user declined to answer.');
    },
  );
});
