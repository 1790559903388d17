import type { CanUseTool, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import type { ProviderHost } from '../../actors/provider-host.js';
import { BatonError } from '../../domain/errors.js';
import type { ProviderSessionId, RuntimeRequestId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { ApprovalDecision, RuntimeRequestKind } from '../../domain/statuses.js';
import type { ClaudeNormalizer } from './claude-normalizer.js';

/** The session a permission ask comes from, as the permissions see it. */
export interface PermissionSession {
  sessionId: ProviderSessionId;
  normalizer: ClaudeNormalizer;
}

/** A permission callback waiting on the user's answer. */
interface PendingApproval {
  toolUseId: string;
  input: Record<string, unknown>;
  answer(result: PermissionResult): void;
}

export interface ClaudePermissionsOptions {
  threadId: ThreadId;
  host: ProviderHost;
  /** Reports provider events (in order, through the adapter). */
  forward(events: ProviderEvent[]): void;
  /** Whether the session is still the adapter's live one (a stale session's asks are denied). */
  isCurrent(session: PermissionSession): boolean;
}

const requestKind = (toolName: string): RuntimeRequestKind =>
  toolName === 'Bash'
    ? 'command'
    : ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'].includes(toolName)
      ? 'file_change'
      : toolName === 'Read'
        ? 'file_read'
        : 'dynamic_tool_call';

export const denied = (message: string, interrupt = false): PermissionResult => ({
  behavior: 'deny',
  message,
  ...(interrupt ? { interrupt: true } : {}),
});

const sessionStatus = (
  threadId: ThreadId,
  sessionId: ProviderSessionId,
  status: 'waiting' | 'running',
): ProviderEvent => ({ type: 'session.status', threadId, sessionId, provider: 'claude', status, reason: null });

/**
 * The agent's permission asks (`canUseTool`): each becomes an approval request on the
 * tool's node and waits for the user's answer (`respond`). An interrupt, a stop or the
 * agent's end denies every pending one (`denyAll`).
 */
export class ClaudePermissions {
  private readonly approvals = new Map<RuntimeRequestId, PendingApproval>();

  constructor(private readonly options: ClaudePermissionsOptions) {}

  /** The `canUseTool` callback of one session. */
  canUseTool(session: PermissionSession): CanUseTool {
    return (toolName, input, { toolUseID, signal }) => {
      const ref = session.normalizer.active;
      if (!ref || !this.options.isCurrent(session)) return Promise.resolve(denied('No Baton run is active.'));
      const { host, threadId } = this.options;
      const requestId = host.ids.next('request');
      const command = typeof input.command === 'string' ? input.command : null;
      return new Promise<PermissionResult>((resolve) => {
        const answer = (result: PermissionResult) => {
          if (this.approvals.delete(requestId)) resolve(result);
        };
        this.approvals.set(requestId, { toolUseId: toolUseID, input, answer });
        signal.addEventListener('abort', () => answer(denied('The request was aborted.')), { once: true });
        this.options.forward([
          {
            type: 'request.opened',
            threadId,
            runId: ref.runId,
            requestId,
            nodeId: host.ids.next('node'),
            parentNodeId: session.normalizer.toolNode(toolUseID) ?? ref.rootNodeId,
            kind: requestKind(toolName),
            prompt: command ?? `Allow ${toolName}?`,
            details: { toolName, toolUseId: toolUseID, input },
            providerSessionId: session.sessionId,
          },
          sessionStatus(threadId, session.sessionId, 'waiting'),
        ]);
      });
    };
  }

  /** The user's answer to a pending ask. */
  respond(requestId: RuntimeRequestId, decision: ApprovalDecision | null, session: PermissionSession | null): void {
    const pending = this.approvals.get(requestId);
    if (!pending || !session)
      throw new BatonError('not_resumable', `the Claude permission callback for request ${requestId} is gone`);
    if (decision === 'accept' || decision === 'acceptForSession') {
      pending.answer({ behavior: 'allow', updatedInput: pending.input });
    } else if (decision === 'cancel') {
      // Cancel stops the turn as well: its end is an interruption.
      session.normalizer.interruptRequested = true;
      pending.answer(denied('The user cancelled this tool use and the turn.', true));
    } else {
      pending.answer(denied('The user declined this tool use.'));
    }
    this.options.forward([sessionStatus(this.options.threadId, session.sessionId, 'running')]);
  }

  /** Denies every pending ask (the turn is stopping or the agent is gone) and closes its request. */
  denyAll(message: string): void {
    for (const [requestId, pending] of [...this.approvals]) {
      pending.answer(denied(message, true));
      this.options.forward([{ type: 'request.closed', threadId: this.options.threadId, requestId, reason: message }]);
    }
  }
}
