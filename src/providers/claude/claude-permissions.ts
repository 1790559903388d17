import type {
  CanUseTool,
  ElicitationResult,
  OnElicitation,
  PermissionResult,
  PermissionUpdate,
} from '@anthropic-ai/claude-agent-sdk';
import type { ProviderHost } from '../../actors/provider-host.js';
import type { Question } from '../../domain/entities.js';
import { BatonError } from '../../domain/errors.js';
import type { NodeId, ProviderSessionId, RuntimeRequestId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { ApprovalDecision, RuntimeRequestKind } from '../../domain/statuses.js';
import { formQuestions, formReply, McpForm, McpUrl, urlReply, type McpReply } from '../mcp-forms.js';
import type { ClaudeNormalizer } from './claude-normalizer.js';
import type { AskPlace } from './claude-subagents.js';
import { batonQuestions, claudeAnswers } from './claude-questions.js';

/** The session a permission ask comes from, as the permissions see it. */
export interface PermissionSession {
  sessionId: ProviderSessionId;
  normalizer: ClaudeNormalizer;
}

/** A permission callback waiting on the user's answer. */
interface PendingAsk {
  session: PermissionSession;
  input: Record<string, unknown>;
  /** The questions of an `AskUserQuestion` (answered with `answers`, not a decision). */
  questions: Question[] | null;
  /** The agent's rules for "don't ask again" (given back, session-scoped, on accept for session). */
  suggestions: PermissionUpdate[];
  /** What an accept for session lets through without asking (see `sessionKey`). */
  key: string;
  answer(result: PermissionResult): void;
  /**
   * An MCP server's request (`onElicitation`): a form answered with its content (`schema`), or
   * a URL to open answered by the decision (no schema); either declined.
   */
  form?: { schema: McpForm | null; reply(reply: McpReply): void };
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

/**
 * ExitPlanMode's answer. The plan is already Baton's proposed plan (the normalizer reads it
 * off the tool use); implementing it is a new run the user starts, so the agent stays in plan
 * mode and ends its turn (feature-lifecycles: "Proposed plan implementation creates a new run").
 */
export const PLAN_PROPOSED =
  'Baton has shown your plan to the user as a proposed plan. Stay in plan mode and end your turn now: ' +
  'the user will ask for its implementation in a new message.';

/** An exact tool use: what Baton lets through again in the session after an accept for session. */
const sessionKey = (toolName: string, input: Record<string, unknown>) => `${toolName} ${JSON.stringify(input)}`;

/**
 * The agent's suggestions, kept to this session: its rules would otherwise go to
 * `localSettings`, a `.claude/settings.local.json` written into the user's workspace (measured),
 * which Baton's agents never read (`settingSources: []`). A mode change is the thread's settings' call.
 */
const sessionScoped = (suggestions: PermissionUpdate[]): PermissionUpdate[] =>
  suggestions.flatMap((s) => (s.type === 'setMode' ? [] : [{ ...s, destination: 'session' as const }]));

const sessionStatus = (
  threadId: ThreadId,
  sessionId: ProviderSessionId,
  status: 'waiting' | 'running' | 'ready',
): ProviderEvent => ({ type: 'session.status', threadId, sessionId, provider: 'claude', status, reason: null });

/**
 * The agent's permission asks (`canUseTool`): each becomes an approval request on the
 * tool's node and waits for the user's answer (`respond`); `AskUserQuestion` becomes a
 * user-input request with its questions; `ExitPlanMode` is answered by Baton itself. An
 * interrupt, a stop or the agent's end denies every pending one (`denyAll`); an ask the agent
 * withdraws (its signal aborts) closes its request.
 */
export class ClaudePermissions {
  private readonly asks = new Map<RuntimeRequestId, PendingAsk>();
  /** Exact tool uses accepted for the session, per session. */
  private readonly acceptedForSession = new WeakMap<PermissionSession, Set<string>>();

  constructor(private readonly options: ClaudePermissionsOptions) {}

  /** Asks waiting on the user (the turn watchdog pauses while there are any). */
  get pending(): number {
    return this.asks.size;
  }

  /** The `canUseTool` callback of one session. */
  canUseTool(session: PermissionSession): CanUseTool {
    return async (toolName, input, { toolUseID, agentID, signal, suggestions }) => {
      // A subagent's ask (`agentID`) belongs to its run and tool node, even after its parent's turn
      // ended; an ask of a turn the agent runs of its own waits until that turn is bound to its run.
      const at = await session.normalizer.askPlace(toolUseID, agentID);
      if (!at || !this.options.isCurrent(session) || signal.aborted) return denied('No Baton run is active.');
      if (toolName === 'ExitPlanMode') return Promise.resolve(denied(PLAN_PROPOSED));
      const key = sessionKey(toolName, input);
      if (this.acceptedForSession.get(session)?.has(key))
        return Promise.resolve({ behavior: 'allow', updatedInput: input });
      const questions = toolName === 'AskUserQuestion' ? batonQuestions(input) : null;
      if (toolName === 'AskUserQuestion' && !questions)
        return Promise.resolve(denied('Baton could not read these questions.'));
      const { host, threadId } = this.options;
      const requestId = host.ids.next('request');
      const nodeId = host.ids.next('node');
      const command = typeof input.command === 'string' ? input.command : null;
      const on = { threadId, runId: at.runId };
      return new Promise<PermissionResult>((resolve) => {
        const answer = (result: PermissionResult) => {
          if (this.asks.delete(requestId)) resolve(result);
        };
        this.asks.set(requestId, {
          session,
          input,
          questions,
          suggestions: suggestions ?? [],
          key,
          answer,
        });
        signal.addEventListener(
          'abort',
          () => {
            if (!this.asks.has(requestId)) return;
            answer(denied('The request was aborted.'));
            this.options.forward([
              { type: 'request.closed', threadId, requestId, reason: 'the Claude agent withdrew the request' },
            ]);
          },
          { once: true },
        );
        this.opened(session, at, requestId, nodeId, questions, {
          kind: questions ? 'user_input' : requestKind(toolName),
          prompt: questions ? questions[0]!.question : (command ?? `Allow ${toolName}?`),
          details: { toolName, toolUseId: toolUseID, input, ...(agentID ? { agentId: agentID } : {}) },
        });
      });
    };
  }

  /**
   * The `onElicitation` callback of one session: an MCP server's request under the server's
   * running tool call (else the turn): a form (mcp-forms.ts) as questions, answered with its
   * content; a URL to open (an http(s) one) as an approval to open it. Either may be declined;
   * one with no run to ask on is declined.
   */
  onElicitation(session: PermissionSession): OnElicitation {
    return async (request, { signal }) => {
      const form = request.mode === 'url' ? null : McpForm.safeParse(request.requestedSchema);
      const url = request.mode === 'url' ? McpUrl.safeParse(request.url) : null;
      if (!form?.success && !url?.success) return { action: 'decline' };
      const toolUseId = session.normalizer.runningMcpCall(request.serverName);
      const at = await session.normalizer.askPlace(toolUseId ?? '', undefined);
      if (!at || !this.options.isCurrent(session) || signal.aborted) return { action: 'decline' };
      const { host } = this.options;
      const requestId = host.ids.next('request');
      const nodeId = host.ids.next('node');
      const schema = form?.success ? form.data : null;
      return new Promise<ElicitationResult>((resolve) => {
        const settle = (reply: McpReply) => {
          if (this.asks.delete(requestId)) resolve(reply.content ? reply : { action: reply.action });
        };
        this.asks.set(requestId, {
          session,
          input: {},
          questions: null,
          suggestions: [],
          key: '',
          answer: () => settle({ action: 'cancel', content: null }),
          form: { schema, reply: settle },
        });
        signal.addEventListener('abort', () => this.withdrawn(requestId), { once: true });
        const { serverName, message } = request;
        const on = { serverName, message, ...(toolUseId ? { toolUseId } : {}) };
        if (schema)
          this.opened(session, at, requestId, nodeId, formQuestions(schema), {
            kind: 'user_input',
            prompt: message,
            details: { ...on, requestedSchema: schema },
          });
        else
          this.opened(session, at, requestId, nodeId, null, {
            kind: 'auth_refresh',
            prompt: message,
            details: { ...on, url: request.url, elicitationId: request.elicitationId ?? null },
          });
      });
    };
  }

  /** An ask the agent withdrew (its signal aborted): denied, and its request closed. */
  private withdrawn(requestId: RuntimeRequestId): void {
    const pending = this.asks.get(requestId);
    if (!pending) return;
    pending.answer(denied('The request was aborted.'));
    const { threadId } = this.options;
    this.options.forward([
      { type: 'request.closed', threadId, requestId, reason: 'the Claude agent withdrew the request' },
    ]);
  }

  /** A request on a node of its own under the ask's place; structured questions are also an artifact (as Codex's are). */
  private opened(
    session: PermissionSession,
    at: AskPlace,
    requestId: RuntimeRequestId,
    nodeId: NodeId,
    questions: Question[] | null,
    request: { kind: RuntimeRequestKind; prompt: string; details: Record<string, unknown> },
  ): void {
    const { host, threadId } = this.options;
    const on = { threadId, runId: at.runId };
    const opened: ProviderEvent = {
      type: 'request.opened',
      ...on,
      requestId,
      nodeId,
      parentNodeId: at.parentNodeId,
      ...request,
      providerSessionId: session.sessionId,
      ...(at.outlivesRun ? { outlivesRun: true } : {}),
    };
    const asked: ProviderEvent[] = questions
      ? [
          {
            type: 'plan.updated',
            ...on,
            nodeId,
            planId: host.ids.next('plan'),
            kind: 'questions',
            text: request.prompt,
            steps: [],
            questions,
          },
        ]
      : [];
    this.options.forward([opened, ...asked, sessionStatus(threadId, session.sessionId, 'waiting')]);
  }

  /** The user's answer to a pending ask: a decision, or the answers to its questions. */
  respond(
    requestId: RuntimeRequestId,
    decision: ApprovalDecision | null,
    session: PermissionSession | null,
    answers: Record<string, string | string[]> | null = null,
  ): void {
    const pending = this.asks.get(requestId);
    if (!pending || !session || pending.session !== session)
      throw new BatonError('not_resumable', `the Claude permission callback for request ${requestId} is gone`);
    if (pending.form) {
      const { schema, reply } = pending.form;
      reply(schema ? formReply(schema, decision, answers) : urlReply(decision));
    } else if (pending.questions && answers) {
      pending.answer({
        behavior: 'allow',
        updatedInput: { ...pending.input, answers: claudeAnswers(pending.questions, answers) },
      });
    } else if (pending.questions && decision === 'decline') {
      pending.answer(denied('The user declined to answer.'));
    } else if (pending.questions && decision !== 'cancel') {
      throw new BatonError('invalid_payload', `request ${requestId} asks questions: answer them`);
    } else if (decision === 'accept' || decision === 'acceptForSession') {
      const forSession = decision === 'acceptForSession';
      if (forSession) {
        const accepted = this.acceptedForSession.get(session) ?? new Set<string>();
        accepted.add(pending.key);
        this.acceptedForSession.set(session, accepted);
      }
      pending.answer({
        behavior: 'allow',
        updatedInput: pending.input,
        ...(forSession && pending.suggestions.length ? { updatedPermissions: sessionScoped(pending.suggestions) } : {}),
      });
    } else if (decision === 'cancel') {
      // Cancel stops the turn as well: its end is an interruption.
      session.normalizer.interruptRequested = true;
      pending.answer(denied('The user cancelled this tool use and the turn.', true));
    } else {
      pending.answer(denied('The user declined this tool use.'));
    }
    // With no turn running (a background subagent asked), the session is idle again.
    const status = session.normalizer.active ? 'running' : this.asks.size > 0 ? 'waiting' : 'ready';
    this.options.forward([sessionStatus(this.options.threadId, session.sessionId, status)]);
  }

  /** Denies every pending ask (the turn is stopping or the agent is gone) and closes its request. */
  denyAll(message: string): void {
    for (const [requestId, pending] of [...this.asks]) {
      pending.answer(denied(message, true));
      this.options.forward([{ type: 'request.closed', threadId: this.options.threadId, requestId, reason: message }]);
    }
  }
}
