import type * as acp from '@agentclientprotocol/sdk';
import type { ProviderHost } from '../../actors/provider-host.js';
import { BatonError } from '../../domain/errors.js';
import type { ProviderSessionId, RuntimeRequestId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { ApprovalDecision, RuntimeRequestKind } from '../../domain/statuses.js';
import type { AcpNormalizer } from './acp-normalizer.js';
import { proposedPlanOf } from './acp-proposed-plan.js';

/** The session an ask comes from, as the permissions see it. */
export interface PermissionSession {
  sessionId: ProviderSessionId;
  normalizer: AcpNormalizer;
}

interface PendingAsk {
  session: PermissionSession;
  options: acp.PermissionOption[];
  answer(response: acp.RequestPermissionResponse): void;
}

const CANCELLED: acp.RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/** The request kind follows the tool call's kind (ACP's `ToolKind`). */
export const requestKind = (kind: string | null | undefined): RuntimeRequestKind =>
  kind === 'execute'
    ? 'command'
    : kind === 'edit' || kind === 'delete' || kind === 'move'
      ? 'file_change'
      : kind === 'read'
        ? 'file_read'
        : 'dynamic_tool_call';

/**
 * Baton's decision -> one of the agent's options: accept -> `allow_once`, acceptForSession ->
 * `allow_always` (else `allow_once`), decline -> `reject_once` (else `reject_always`). An
 * agent that offers none of the kinds a decision needs gets `cancelled`.
 */
export function chosenOption(
  options: acp.PermissionOption[],
  decision: ApprovalDecision,
): acp.RequestPermissionResponse {
  const kinds: Record<Exclude<ApprovalDecision, 'cancel'>, acp.PermissionOptionKind[]> = {
    accept: ['allow_once'],
    acceptForSession: ['allow_always', 'allow_once'],
    decline: ['reject_once', 'reject_always'],
  };
  if (decision === 'cancel') return CANCELLED;
  for (const kind of kinds[decision]) {
    const option = options.find((o) => o.kind === kind);
    if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
  return CANCELLED;
}

export interface AcpPermissionsOptions {
  threadId: ThreadId;
  host: ProviderHost;
  forward(events: ProviderEvent[]): void;
  /** Baton's `cancel` decision stops the turn too (the adapter sends `session/cancel`). */
  cancelTurn(session: PermissionSession): void;
}

/**
 * `session/request_permission` -> an approval request on the tool call's node, waiting for
 * the user's answer (`respond`, from `provider.runtime-request.respond`). An interrupt, a
 * stop or the agent's end answers every pending one `cancelled` (`cancelAll`), as ACP asks
 * of a client that cancels a prompt. In a plan-mode turn, the agent's ask to leave plan mode
 * is its proposed plan, answered by Baton at once (acp-proposed-plan.ts).
 */
export class AcpPermissions {
  private readonly asks = new Map<RuntimeRequestId, PendingAsk>();

  constructor(private readonly options: AcpPermissionsOptions) {}

  get pending(): number {
    return this.asks.size;
  }

  ask(session: PermissionSession, params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    const ref = session.normalizer.active;
    if (!ref) return Promise.resolve(CANCELLED);
    const proposal = proposedPlanOf(params, ref.planning === true);
    if (proposal) {
      this.options.forward(session.normalizer.planProposed(proposal.text));
      return Promise.resolve(proposal.answer);
    }
    const { host, threadId } = this.options;
    const requestId = host.ids.next('request');
    const nodeId = host.ids.next('node');
    const tool = params.toolCall;
    const input = tool.rawInput && typeof tool.rawInput === 'object' ? (tool.rawInput as Record<string, unknown>) : {};
    const command = typeof input.command === 'string' ? input.command : null;
    return new Promise((resolve) => {
      this.asks.set(requestId, {
        session,
        options: params.options,
        answer: (response) => {
          if (this.asks.delete(requestId)) resolve(response);
        },
      });
      this.options.forward([
        {
          type: 'request.opened',
          threadId,
          runId: ref.runId,
          requestId,
          nodeId,
          parentNodeId: session.normalizer.toolNode(tool.toolCallId) ?? ref.rootNodeId,
          kind: requestKind(tool.kind),
          prompt: command ?? tool.title ?? 'Allow this tool call?',
          details: {
            toolCallId: tool.toolCallId,
            ...(tool.kind ? { toolKind: tool.kind } : {}),
            ...(tool.title ? { title: tool.title } : {}),
            input,
            options: params.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
          },
          providerSessionId: session.sessionId,
        },
        this.sessionStatus(session, 'waiting'),
      ]);
    });
  }

  respond(requestId: RuntimeRequestId, decision: ApprovalDecision | null, session: PermissionSession | null): void {
    const pending = this.asks.get(requestId);
    if (!pending || !session || pending.session !== session)
      throw new BatonError('not_resumable', `the ACP permission request ${requestId} is gone (its agent ended)`);
    if (decision === null) throw new BatonError('invalid_payload', `request ${requestId} needs a decision`);
    if (decision === 'cancel') {
      session.normalizer.interruptRequested = true;
      pending.answer(CANCELLED);
      this.options.cancelTurn(session);
    } else {
      pending.answer(chosenOption(pending.options, decision));
    }
    this.options.forward([this.sessionStatus(session, 'running')]);
  }

  /**
   * Closes every pending ask's request, answering the agent `cancelled` unless it is being
   * killed (`answer: false`): an answer racing the kill would reach it or not, at random.
   */
  cancelAll(reason: string, { answer = true }: { answer?: boolean } = {}): void {
    for (const [requestId, pending] of [...this.asks]) {
      if (answer) pending.answer(CANCELLED);
      else this.asks.delete(requestId);
      this.options.forward([{ type: 'request.closed', threadId: this.options.threadId, requestId, reason }]);
    }
  }

  private sessionStatus(session: PermissionSession, status: 'waiting' | 'running'): ProviderEvent {
    return {
      type: 'session.status',
      threadId: this.options.threadId,
      sessionId: session.sessionId,
      provider: 'acp',
      status,
      reason: null,
    };
  }
}
