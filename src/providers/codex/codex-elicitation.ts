import { z } from 'zod';
import type { Answers } from '../../domain/answers.js';
import type { ApprovalDecision } from '../../domain/statuses.js';
import type {
  McpServerElicitationRequestParams,
  McpServerElicitationRequestResponse,
} from '../../../vendor/codex-protocol/v2/index.js';
import { formReply, McpForm, McpUrl, urlReply } from '../mcp-forms.js';

/**
 * An MCP server's request for input (`elicitation/create`), as Codex passes it on:
 * `mcpServer/elicitation/request`. A form (mcp-forms.ts) is asked as questions, a URL to
 * open as an approval to open it; OpenAI's own modes are not requests Baton can ask: Codex
 * is told Baton does not handle them, which it takes as declined.
 */

/** Where a request comes from and what it says, in either mode. */
const asked = { threadId: z.string(), turnId: z.string().nullable(), serverName: z.string(), message: z.string() };
const ElicitationForm = z.looseObject({ ...asked, mode: z.literal('form'), requestedSchema: McpForm });
const ElicitationUrl = z.looseObject({ ...asked, mode: z.literal('url'), url: McpUrl, elicitationId: z.string() });

/** A request Baton asks the user: a form, or a URL to open. */
export const ElicitationRequest = z.discriminatedUnion('mode', [ElicitationForm, ElicitationUrl]);

// Each mode as Codex's protocol has it must read as one: a change there breaks the build.
type Protocol<M> = Extract<McpServerElicitationRequestParams, { mode: M }>;
const formIsProtocols = (form: Protocol<'form'>): z.input<typeof ElicitationForm> => form;
const urlIsProtocols = (request: Protocol<'url'>): z.input<typeof ElicitationUrl> => request;
void formIsProtocols;
void urlIsProtocols;

/** Codex's reply: a form's content (the answers), a URL accepted, or either declined / cancelled. */
export function elicitationReply(
  form: McpForm | null,
  decision: ApprovalDecision | null,
  answers: Answers | null,
): McpServerElicitationRequestResponse {
  return { ...(form ? formReply(form, decision, answers) : urlReply(decision)), _meta: null };
}
