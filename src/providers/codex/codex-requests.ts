import { Question } from '../../domain/entities.js';
import type { NodeId, ProviderSessionId, RuntimeRequestId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';
import type { RuntimeRequestKind } from '../../domain/statuses.js';
import type { NormalizerScope } from '../provider.js';
import type { RpcId } from '../transport/json-rpc.js';
import { requestFrames, type RequestMethod } from './codex-frames.js';
import { ElicitationRequest } from './codex-elicitation.js';
import { formQuestions, type McpForm } from '../mcp-forms.js';
import type { CodexItems, TurnRef } from './codex-items.js';
import type { ReplyMethod } from './codex-replies.js';
import type { CodexSubagents } from './codex-subagents.js';
import { userCommandOf } from '../shell-command.js';

/**
 * Codex's server requests that wait on the user -> runtime requests: approvals of a
 * command or a file change, the agent's questions, an MCP server's form. Each is a request
 * on a node of its own under the item (or turn) that asked; structured questions are also
 * an artifact. Its live callback is kept until the adapter answers it (or Codex withdraws it).
 */

export interface PendingRequest {
  requestId: RuntimeRequestId;
  rpcId: RpcId;
  method: ReplyMethod;
  /** An MCP server's form: its answers are sent back typed as it asks. */
  form?: McpForm;
}

/** What the requests need of the normalizer: the thread it drives and the attempts of its turns. */
export interface RequestHost {
  readonly nativeThreadId: string | null;
  /** The attempt of a native turn of our thread (binding the one starting, if it is new). */
  turn(nativeTurnId: string): TurnRef | null;
}

/** Codex's questions, as Baton keeps them (with `isOther`, which Codex always sets: it adds "Other" itself). */
const AskedQuestions = Question.extend({ options: Question.shape.options.default(null) }).array();

export class CodexRequests {
  readonly pending = new Map<string, PendingRequest>();
  private readonly threadId: ThreadId;
  private readonly sessionId: ProviderSessionId;
  private readonly ids: IdSource;

  constructor(
    scope: NormalizerScope,
    private readonly items: CodexItems,
    private readonly subagents: CodexSubagents,
    private readonly host: RequestHost,
  ) {
    this.threadId = scope.threadId;
    this.sessionId = scope.sessionId;
    this.ids = scope.ids;
  }

  /** A server request -> its runtime request's events; null for one Baton does not ask the user. */
  serverRequest(rpcId: RpcId, method: string, params: unknown): ProviderEvent[] | null {
    switch (method) {
      case 'item/commandExecution/requestApproval': {
        const p = requestFrames[method].safeParse(params);
        if (p.success)
          return this.opened(
            rpcId,
            method,
            'command',
            p.data,
            p.data.command ? userCommandOf(p.data.command) : (p.data.reason ?? 'Allow command?'),
          );
        break;
      }
      case 'item/fileChange/requestApproval': {
        const p = requestFrames[method].safeParse(params);
        if (p.success) return this.opened(rpcId, method, 'file_change', p.data, p.data.reason ?? 'Allow file change?');
        break;
      }
      case 'item/tool/requestUserInput': {
        const p = requestFrames[method].safeParse(params);
        if (p.success)
          return this.opened(
            rpcId,
            method,
            'user_input',
            p.data,
            p.data.questions[0]?.question ?? 'The agent has questions',
            p.data.questions,
          );
        break;
      }
      case 'mcpServer/elicitation/request': {
        const events = this.elicitation(rpcId, params);
        if (events) return events;
        break;
      }
    }
    return null;
  }

  /**
   * An MCP server's request, on a turn of our thread or of a subagent's, under the server's
   * running tool call (else the turn, or the subagent's node): a form as questions, a URL as
   * an approval to open it. Null for what Baton does not ask (another mode, no turn to ask
   * on): the adapter then answers that it does not handle it.
   */
  private elicitation(rpcId: RpcId, params: unknown): ProviderEvent[] | null {
    const parsed = ElicitationRequest.safeParse(params);
    const request = parsed.success ? parsed.data : null;
    const turnId = request?.turnId;
    if (!request || !turnId) return null;
    const { threadId, serverName, message } = request;
    const child = this.subagents.formAt(threadId, turnId, serverName);
    const ref = child?.ref ?? (threadId === this.host.nativeThreadId ? this.host.turn(turnId) : null);
    if (!ref) return null;
    const at = { ref, parentNodeId: child?.parentNodeId ?? this.items.runningMcpCall(serverName) ?? ref.rootNodeId };
    const method = 'mcpServer/elicitation/request';
    const asked = { threadId, turnId, serverName, message };
    if (request.mode === 'url') {
      const details = { ...asked, url: request.url, elicitationId: request.elicitationId };
      return this.open({ rpcId, method }, at, 'auth_refresh', details, message);
    }
    const form = request.requestedSchema;
    const details = { ...asked, requestedSchema: form };
    return this.open({ rpcId, method, form }, at, 'user_input', details, message, formQuestions(form));
  }

  /** A request of an item of a turn: a subagent's ask is on its node (or its item's); ours on the item's node, else the turn's. */
  private opened(
    rpcId: RpcId,
    method: RequestMethod,
    kind: RuntimeRequestKind,
    details: { threadId: string; turnId: string; itemId: string } & Record<string, unknown>,
    prompt: string,
    questions?: unknown[],
  ): ProviderEvent[] {
    const child = this.subagents.requestAt(details.threadId, details.turnId, details.itemId);
    const ours = this.host.nativeThreadId === null || details.threadId === this.host.nativeThreadId;
    const ref = child?.ref ?? (ours ? this.host.turn(details.turnId) : null);
    if (!ref) return [];
    const parentNodeId = child?.parentNodeId ?? this.items.nodeOf(details.itemId) ?? ref.rootNodeId;
    const asked = questions && (AskedQuestions.safeParse(questions).data ?? []);
    return this.open({ rpcId, method }, { ref, parentNodeId }, kind, details, prompt, asked);
  }

  /** A runtime request on a node of its own under `parentNodeId`; structured questions are also an artifact. */
  private open(
    callback: Omit<PendingRequest, 'requestId'>,
    at: { ref: TurnRef; parentNodeId: NodeId },
    kind: RuntimeRequestKind,
    details: Record<string, unknown>,
    prompt: string,
    questions?: Question[],
  ): ProviderEvent[] {
    const { ref, parentNodeId } = at;
    const requestId = this.ids.next('request');
    this.pending.set(requestId, { requestId, ...callback });
    const nodeId = this.ids.next('node');
    const on = { threadId: this.threadId, runId: ref.runId };
    const opened: ProviderEvent = {
      type: 'request.opened',
      ...on,
      requestId,
      nodeId,
      parentNodeId,
      kind,
      prompt,
      details,
      providerSessionId: this.sessionId,
    };
    if (!questions) return [opened];
    return [
      opened,
      {
        type: 'plan.updated',
        ...on,
        nodeId,
        planId: this.ids.next('plan'),
        kind: 'questions',
        text: prompt,
        steps: [],
        questions,
      },
    ];
  }
}
