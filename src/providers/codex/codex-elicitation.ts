import { z } from 'zod';
import type { Answers } from '../../domain/answers.js';
import type { ApprovalDecision } from '../../domain/statuses.js';
import type {
  McpServerElicitationRequestParams,
  McpServerElicitationRequestResponse,
} from '../../../vendor/codex-protocol/v2/index.js';
import { formReply, McpForm } from '../mcp-forms.js';

/**
 * An MCP server's request for input (`elicitation/create`), as Codex passes it on:
 * `mcpServer/elicitation/request`. A form (mcp-forms.ts) is asked as questions; other modes
 * (a URL to visit, OpenAI's own) are not questions Baton can ask: Codex is told Baton does
 * not handle them, which it takes as declined.
 */
export const ElicitationForm = z.looseObject({
  threadId: z.string(),
  turnId: z.string().nullable(),
  serverName: z.string(),
  mode: z.literal('form'),
  message: z.string(),
  requestedSchema: McpForm,
});
export type ElicitationForm = z.infer<typeof ElicitationForm>;

// The form as Codex's protocol has it must read as one: a change there breaks the build.
type ProtocolForm = Extract<McpServerElicitationRequestParams, { mode: 'form' }>;
const formIsProtocols = (form: ProtocolForm): z.input<typeof ElicitationForm> => form;
void formIsProtocols;

/** Codex's reply to the form: its content (the answers), or declined / cancelled. */
export function elicitationReply(
  form: McpForm,
  decision: ApprovalDecision | null,
  answers: Answers | null,
): McpServerElicitationRequestResponse {
  return { ...formReply(form, decision, answers), _meta: null };
}
