import type { ProviderEvent } from '../../domain/provider-events.js';
import type { MessageId, NodeId, PlanArtifactId, RunAttemptId, RunId, ThreadId } from '../../domain/ids.js';
import type { IdSource } from '../../domain/sources.js';
import { itemFrames } from './codex-frames.js';
import { toolDetail, toolTitle } from './codex-tool-items.js';

/**
 * Codex thread items and their streamed deltas -> provider events: assistant messages,
 * reasoning, tool calls (commands, file changes, MCP, dynamic tools, web search) and
 * proposed plans. Owns which native item is which node, message or plan.
 */
export interface TurnRef {
  runId: RunId;
  attemptId: RunAttemptId;
  rootNodeId: NodeId;
}

export type NativeItem = { type: string; id: string } & Record<string, unknown>;

const toolTypes = new Set(['commandExecution', 'fileChange', 'mcpToolCall', 'dynamicToolCall', 'webSearch']);
/** Item statuses; an item with none (web search, reasoning) ended when Codex says it completed. */
const itemStatus = (s: unknown): 'completed' | 'failed' | 'cancelled' =>
  s === undefined || s === 'completed' ? 'completed' : s === 'declined' ? 'cancelled' : 'failed';
/** Summary parts are paragraphs: the text a node streams is the one its completed item holds. */
export const summarySeparator = '\n\n';

interface ItemIds {
  nodeId?: NodeId;
  messageId?: MessageId;
  planId?: PlanArtifactId;
}

export class CodexItems {
  private readonly items = new Map<string, ItemIds>();
  /** MCP tool calls running, by item id: their server, and their node (an elicitation of the server asks under it). */
  private readonly mcpCalls = new Map<string, { server: string; nodeId: NodeId }>();

  constructor(
    private readonly threadId: ThreadId,
    private readonly ids: IdSource,
  ) {}

  /** The node of a native item, if it has one. */
  nodeOf(itemId: string): NodeId | undefined {
    return this.items.get(itemId)?.nodeId;
  }

  /** The node of the latest MCP tool call of `server` still running, if one is. */
  runningMcpCall(server: string): NodeId | undefined {
    return [...this.mcpCalls.values()].findLast((c) => c.server === server)?.nodeId;
  }

  messageOf(itemId: string): MessageId {
    const known = this.items.get(itemId);
    if (known?.messageId) return known.messageId;
    const messageId = this.ids.next('message');
    this.items.set(itemId, { messageId });
    return messageId;
  }

  /** `item/started` and `item/completed`. */
  item(started: boolean, item: NativeItem, ref: TurnRef): ProviderEvent[] {
    const on = { threadId: this.threadId, runId: ref.runId };
    if (item.type === 'agentMessage') {
      const text = itemFrames.agentMessage.safeParse(item).data?.text ?? '';
      return started
        ? []
        : [{ type: 'message.completed', ...on, nodeId: ref.rootNodeId, messageId: this.messageOf(item.id), text }];
    }
    if (item.type === 'plan') return this.plan(started, item, ref);
    if (item.type !== 'reasoning' && !toolTypes.has(item.type)) return [];
    const kind = item.type === 'reasoning' ? 'reasoning' : 'tool_call';
    if (item.type === 'mcpToolCall' && !started) this.mcpCalls.delete(item.id);
    if (started) {
      const nodeId = this.ids.next('node');
      this.items.set(item.id, { nodeId });
      const server = item.type === 'mcpToolCall' ? itemFrames.mcpToolCall.safeParse(item).data?.server : undefined;
      if (server !== undefined) this.mcpCalls.set(item.id, { server, nodeId });
      const begun: ProviderEvent = {
        type: 'node.started',
        ...on,
        nodeId,
        parentNodeId: ref.rootNodeId,
        attemptId: ref.attemptId,
        kind,
        title: kind === 'reasoning' ? null : toolTitle(item),
      };
      return kind === 'reasoning'
        ? [begun]
        : [begun, { type: 'node.detail', ...on, nodeId, text: null, detail: toolDetail(item, true) }];
    }
    const nodeId = this.nodeOf(item.id);
    if (!nodeId) return [];
    const detail: ProviderEvent =
      kind === 'reasoning'
        ? this.reasoningDetail(item, nodeId, ref)
        : { type: 'node.detail', ...on, nodeId, text: null, detail: toolDetail(item, false) };
    return [detail, { type: 'node.completed', ...on, nodeId, status: itemStatus(item.status) }];
  }

  /** Streamed assistant text. */
  messageDelta(itemId: string, delta: string, ref: TurnRef): ProviderEvent[] {
    return [
      {
        type: 'message.delta',
        threadId: this.threadId,
        runId: ref.runId,
        nodeId: ref.rootNodeId,
        messageId: this.messageOf(itemId),
        delta,
      },
    ];
  }

  /** Streamed text of an item's node: a reasoning summary, command output, MCP progress. */
  nodeDelta(itemId: string, delta: string, ref: TurnRef): ProviderEvent[] {
    const nodeId = this.nodeOf(itemId);
    return nodeId && delta ? [{ type: 'node.delta', threadId: this.threadId, runId: ref.runId, nodeId, delta }] : [];
  }

  /** A file change's patch as it is being written. */
  patchUpdated(itemId: string, changes: unknown[], ref: TurnRef): ProviderEvent[] {
    const nodeId = this.nodeOf(itemId);
    return nodeId
      ? [
          {
            type: 'node.detail',
            threadId: this.threadId,
            runId: ref.runId,
            nodeId,
            text: null,
            detail: { files: changes },
          },
        ]
      : [];
  }

  /** Streamed text of a proposed plan. */
  planDelta(itemId: string, delta: string, ref: TurnRef): ProviderEvent[] {
    const planId = this.items.get(itemId)?.planId;
    return planId ? [{ type: 'plan.delta', threadId: this.threadId, runId: ref.runId, planId, delta }] : [];
  }

  private reasoningDetail(item: NativeItem, nodeId: NodeId, ref: TurnRef): ProviderEvent {
    const r = itemFrames.reasoning.safeParse(item);
    const summary = r.success ? r.data.summary : [];
    // Raw reasoning content is kept as detail; the node's text is the summary the user may read.
    return {
      type: 'node.detail',
      threadId: this.threadId,
      runId: ref.runId,
      nodeId,
      text: summary.join(summarySeparator),
      detail: r.success && r.data.content.length ? { content: r.data.content } : {},
    };
  }

  /** A plan item is a proposed plan (plan collaboration mode): an artifact, streamed, final when the item completes. */
  private plan(started: boolean, item: NativeItem, ref: TurnRef): ProviderEvent[] {
    const known = this.items.get(item.id)?.planId;
    if (!started && !known) return [];
    const planId = known ?? this.ids.next('plan');
    this.items.set(item.id, { planId });
    const text = started ? '' : (itemFrames.plan.safeParse(item).data?.text ?? '');
    return [
      {
        type: 'plan.updated',
        threadId: this.threadId,
        runId: ref.runId,
        nodeId: ref.rootNodeId,
        planId,
        kind: 'proposed_plan',
        text,
        steps: [],
        final: !started,
      },
    ];
  }
}
