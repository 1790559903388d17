import { isAbsolute, join } from 'node:path';
import type {
  MessagesRequest,
  MessagesResponder,
  MessagesTurn,
} from '../../src/providers/model/scripted-messages-server.js';
import type { ModelStep, Question } from '../support/scenario-kit/model-steps.js';

/** A neutral model step that Claude's scripted Messages-API model cannot play yet. */
export class NoClaudeFormError extends Error {
  constructor(
    readonly step: ModelStep,
    reason: string,
  ) {
    super(`no Claude form yet for the model step '${step.kind}': ${reason}`);
    this.name = 'NoClaudeFormError';
  }
}

export interface ClaudeModelOptions {
  /** The session's folder: Claude's `Write` takes an absolute `file_path`, so relative paths are resolved in it. */
  cwd?: string;
}

/** `AskUserQuestion` wants 2 to 4 options a question (and answers are keyed by the question text, not an id). */
function claudeQuestion(step: ModelStep, q: Question): Record<string, unknown> {
  const options = q.options ?? [];
  if (options.length < 2 || options.length > 4) {
    throw new NoClaudeFormError(step, `AskUserQuestion needs 2 to 4 options, question '${q.id}' has ${options.length}`);
  }
  return {
    question: q.question,
    header: q.header,
    options: options.map((o) => ({ label: o.label, description: o.description })),
    multiSelect: false,
  };
}

/** A turn of Claude's scripted model, or one made from the request it answers. */
export type ClaudeTurn = MessagesTurn | MessagesResponder;

/** Plan mode names the plan file in its reminder (`.../plans/<slug>.md`, a new slug per session). */
export function planFileOf(request: MessagesRequest): string {
  const path = /create your plan at (\S+\.md) using the Write tool/.exec(JSON.stringify(request.body.messages))?.[1];
  if (!path) throw new NoClaudeFormError({ kind: 'hang' }, 'the plan-mode request names no plan file');
  return path;
}

/** A neutral model step as the turns Claude's scripted Messages-API model plays. */
function claudeTurns(step: ModelStep, options: ClaudeModelOptions): ClaudeTurn[] {
  switch (step.kind) {
    case 'text':
      return [
        {
          kind: 'text',
          text: step.text,
          ...(step.chunks ? { chunks: step.chunks } : {}),
          ...(step.delayMs !== undefined ? { delayMs: step.delayMs } : {}),
          ...(step.reasoning?.length ? { thinking: step.reasoning.join('\n\n') } : {}),
        },
      ];
    case 'command':
      // Claude asks for every Bash command through the permission callback (`canUseTool`),
      // so `needsApproval` has no model-side form: whether it asks is Baton's policy.
      return [{ kind: 'tool_use', name: 'Bash', id: step.callId, input: { command: step.command } }];
    case 'add_file': {
      const filePath = options.cwd && !isAbsolute(step.path) ? join(options.cwd, step.path) : step.path;
      return [
        { kind: 'tool_use', name: 'Write', id: step.callId, input: { file_path: filePath, content: step.content } },
      ];
    }
    case 'proposed_plan':
      // Plan mode: the agent's ExitPlanMode reads the plan from the file its plan-mode reminder names.
      return [
        (request) => ({
          kind: 'tool_use',
          name: 'Write',
          id: 'toolu_planfile',
          input: { file_path: planFileOf(request), content: step.plan },
        }),
        { kind: 'tool_use', name: 'ExitPlanMode', id: 'toolu_exitplan', input: {} },
        { kind: 'text', text: step.reply },
      ];
    case 'todo':
      return [
        {
          kind: 'tool_use',
          name: 'TodoWrite',
          id: step.callId,
          input: { todos: step.steps.map((s) => ({ content: s.step, status: s.status, activeForm: s.step })) },
        },
      ];
    case 'questions':
      return [
        {
          kind: 'tool_use',
          name: 'AskUserQuestion',
          input: { questions: step.questions.map((q) => claudeQuestion(step, q)) },
        },
      ];
    case 'mcp_call':
      // Claude names an MCP server's tool `mcp__SERVER__TOOL`.
      return [{ kind: 'tool_use', name: `mcp__${step.server}__${step.tool}`, id: step.callId, input: step.args }];
    case 'error':
      // `x-should-retry: false`: the client gives up at once instead of backing off and retrying.
      return [{ kind: 'error', status: step.status, message: step.message, shouldRetry: false }];
    case 'hang':
      return [{ kind: 'hang' }];
    case 'subagent':
      // The Agent tool, in the foreground (this agent starts subagents in the background unless
      // told otherwise): the subagent's own requests come next, then the parent's gets its report.
      return [
        {
          kind: 'tool_use',
          name: 'Agent',
          id: step.callId,
          input: {
            description: step.description,
            prompt: step.prompt,
            subagent_type: 'general-purpose',
            run_in_background: false,
          },
        },
        ...claudeModel(step.steps, options),
      ];
    case 'web_search':
      // The agent's WebSearch tool asks the model API itself (a request that offers only the
      // server-side web_search tool): the scripted model answers that with the results' text,
      // then gives the reply.
      return [
        { kind: 'tool_use', name: 'WebSearch', input: { query: step.query } },
        { kind: 'text', text: `Results for ${step.query}: one page found.` },
        { kind: 'text', text: step.text },
      ];
  }
}

/** A neutral model script in Claude's terms (throws `NoClaudeFormError` on a step with no Claude form yet). */
export const claudeModel = (steps: readonly ModelStep[], options: ClaudeModelOptions = {}): ClaudeTurn[] =>
  steps.flatMap((step) => claudeTurns(step, options));
