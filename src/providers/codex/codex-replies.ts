import type { ApprovalDecision } from '../../domain/statuses.js';
import type {
  CommandExecutionApprovalDecision,
  CommandExecutionRequestApprovalResponse,
  FileChangeApprovalDecision,
  FileChangeRequestApprovalResponse,
  McpServerElicitationRequestResponse,
  ToolRequestUserInputResponse,
} from '../../../vendor/codex-protocol/v2/index.js';
import { elicitationReply } from './codex-elicitation.js';
import type { McpForm } from '../mcp-forms.js';
import type { RequestMethod } from './codex-frames.js';

/**
 * Baton's answer to a runtime request -> the reply Codex's server request expects, per
 * method. The tables are checked both ways at compile time: a decision Baton adds, or
 * one Codex drops, fails `tsc`.
 */
export type CodexReply =
  | CommandExecutionRequestApprovalResponse
  | FileChangeRequestApprovalResponse
  | ToolRequestUserInputResponse
  | McpServerElicitationRequestResponse;

/** The server requests Baton answers: the ones it reads as frames, and an MCP server's form (codex-elicitation.ts). */
export type ReplyMethod = RequestMethod | 'mcpServer/elicitation/request';

const commandDecisions: Record<ApprovalDecision, CommandExecutionApprovalDecision> = {
  accept: 'accept',
  acceptForSession: 'acceptForSession',
  decline: 'decline',
  cancel: 'cancel',
};

const fileChangeDecisions: Record<ApprovalDecision, FileChangeApprovalDecision> = {
  accept: 'accept',
  acceptForSession: 'acceptForSession',
  decline: 'decline',
  cancel: 'cancel',
};

/**
 * The reply to a request of `method`. Commands make sure an approval carries a decision and
 * a question its answers (or a decline); one without is declined (an approval) or answered
 * with nothing (a question: declined questions get no answers). A form's answers go back
 * typed as `form` asks.
 */
export function codexReply(
  pending: { method: ReplyMethod; form?: McpForm },
  decision: ApprovalDecision | null,
  answers: Record<string, string | string[]> | null,
): CodexReply {
  const { method } = pending;
  switch (method) {
    case 'item/commandExecution/requestApproval':
      return { decision: commandDecisions[decision ?? 'decline'] };
    case 'item/fileChange/requestApproval':
      return { decision: fileChangeDecisions[decision ?? 'decline'] };
    case 'item/tool/requestUserInput':
      return {
        answers: Object.fromEntries(
          Object.entries(answers ?? {}).map(([id, a]) => [id, { answers: Array.isArray(a) ? a : [a] }]),
        ),
      };
    case 'mcpServer/elicitation/request':
      return elicitationReply(pending.form ?? null, decision, answers);
  }
}
