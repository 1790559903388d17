import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';

/**
 * Plan mode's end on ACP. In a turn of a thread whose interactionMode is `plan`, a
 * `session/request_permission` for a tool call of ACP's kind `switch_mode` is the agent asking
 * to leave plan mode and carry out its plan (claude-agent-acp: its ExitPlanMode, titled "Ready
 * to code?", the plan as the tool call's text content). Baton records that text as a final
 * proposed plan and answers the ask with the agent's reject option (the one whose id is the
 * plan mode's, else the first `reject_once`, else `reject_always`): the agent stays in plan
 * mode and its turn ends with nothing implemented, as on Baton's Claude provider.
 * Implementing the plan is the user's next message with interactionMode `default`.
 */

/** Mode ids that mean "keep planning" (acp-turn-settings.ts puts a plan thread's agent in this one). */
const PLAN_MODE_IDS: readonly string[] = ['plan'];

const TextContent = z.looseObject({
  type: z.literal('content'),
  content: z.looseObject({ type: z.literal('text'), text: z.string() }),
});

/** The plan a `switch_mode` tool call carries: its text content, joined. */
export function planTextOf(toolCall: Pick<acp.ToolCallUpdate, 'content'>): string | null {
  const texts = (toolCall.content ?? []).flatMap((c) => {
    const text = TextContent.safeParse(c);
    return text.success && text.data.content.text.trim() ? [text.data.content.text] : [];
  });
  return texts.length ? texts.join('\n') : null;
}

/** The option that keeps the agent in plan mode, if the ask offers one. */
export function keepPlanningOption(options: acp.PermissionOption[]): acp.PermissionOption | null {
  const rejects = options.filter((o) => o.kind === 'reject_once' || o.kind === 'reject_always');
  return (
    rejects.find((o) => PLAN_MODE_IDS.includes(o.optionId)) ??
    rejects.find((o) => o.kind === 'reject_once') ??
    rejects[0] ??
    null
  );
}

/** A proposed plan: its text, and Baton's answer to the agent's ask. */
export interface ProposedPlan {
  text: string;
  answer: acp.RequestPermissionResponse;
}

/**
 * The ask as a proposed plan, or null: not a planning turn, not a `switch_mode` tool call, no
 * plan text, or no option that keeps planning (then it is an approval request, as any other ask).
 */
export function proposedPlanOf(params: acp.RequestPermissionRequest, planning: boolean): ProposedPlan | null {
  if (!planning || params.toolCall.kind !== 'switch_mode') return null;
  const text = planTextOf(params.toolCall);
  const keep = keepPlanningOption(params.options);
  if (text === null || keep === null) return null;
  return { text, answer: { outcome: { outcome: 'selected', optionId: keep.optionId } } };
}
