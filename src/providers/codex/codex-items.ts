import { z } from 'zod';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';
import { toolDetail, toolTitle } from './codex-tool-items.js';

/**
 * Codex thread items and their streamed deltas -> provider events: assistant messages,
 * reasoning, tool calls (commands, file changes, MCP, dynamic tools, web search) and
 * proposed plans. Owns which native item is which node, message or plan.
 */
export interface TurnRef {
  runId: string;
  attemptId: string;
  rootNodeId: string;
}

export type NativeItem = { type: string; id: string } & Record<string, unknown>;

const Reasoning = z.object({ summary: z.array(z.string()).default([]), content: z.array(z.string()).default([]) }).loose();
const PlanItem = z.object({ text: z.string().default('') }).loose();
const ItemDelta = z.object({ itemId: z.string(), delta: z.string() }).loose();
const SummaryPart = z.object({ itemId: z.string(), summaryIndex: z.number() }).loose();
const McpProgress = z.object({ itemId: z.string(), message: z.string() }).loose();
const PatchUpdated = z.object({ itemId: z.string(), changes: z.array(z.unknown()) }).loose();

const toolTypes = new Set(['commandExecution', 'fileChange', 'mcpToolCall', 'dynamicToolCall', 'webSearch']);
/** Item statuses; an item with none (web search, reasoning) ended when Codex says it completed. */
const itemStatus = (s: unknown): 'completed' | 'failed' | 'cancelled' => (s === undefined || s === 'completed' ? 'completed' : s === 'declined' ? 'cancelled' : 'failed');
/** Summary parts are paragraphs: the text a node streams is the one its completed item holds. */
const summarySeparator = '\n\n';

interface ItemIds {
  nodeId?: string;
  messageId?: string;
  planId?: string;
}

export class CodexItems {
  private readonly items = new Map<string, ItemIds>();

  constructor(
    private readonly threadId: string,
    private readonly ids: IdSource,
  ) {}

  /** The node of a native item, if it has one. */
  nodeOf(itemId: string): string | undefined {
    return this.items.get(itemId)?.nodeId;
  }

  messageOf(itemId: string): string {
    const known = this.items.get(itemId);
    if (known?.messageId) return known.messageId;
    const messageId = this.ids.next('message');
    this.items.set(itemId, { messageId });
    return messageId;
  }

  /** `item/started` and `item/completed`. */
  item(started: boolean, item: NativeItem, ref: TurnRef): ProviderEvent[] {
    const on = { threadId: this.threadId as never, runId: ref.runId as never };
    if (item.type === 'agentMessage') {
      return started ? [] : [{ type: 'message.completed', ...on, nodeId: ref.rootNodeId as never, messageId: this.messageOf(item.id) as never, text: String(item.text ?? '') }];
    }
    if (item.type === 'plan') return this.plan(started, item, ref);
    if (item.type !== 'reasoning' && !toolTypes.has(item.type)) return [];
    const kind = item.type === 'reasoning' ? 'reasoning' : 'tool_call';
    if (started) {
      const nodeId = this.ids.next('node');
      this.items.set(item.id, { nodeId });
      const begun: ProviderEvent = { type: 'node.started', ...on, nodeId: nodeId as never, parentNodeId: ref.rootNodeId as never, attemptId: ref.attemptId as never, kind, title: kind === 'reasoning' ? null : toolTitle(item) };
      return kind === 'reasoning' ? [begun] : [begun, { type: 'node.detail', ...on, nodeId: nodeId as never, text: null, detail: toolDetail(item, true) }];
    }
    const nodeId = this.nodeOf(item.id);
    if (!nodeId) return [];
    const detail: ProviderEvent = kind === 'reasoning' ? this.reasoningDetail(item, nodeId, ref) : { type: 'node.detail', ...on, nodeId: nodeId as never, text: null, detail: toolDetail(item, false) };
    return [detail, { type: 'node.completed', ...on, nodeId: nodeId as never, status: itemStatus(item.status) }];
  }

  /** Streamed parts of items: message text, reasoning summaries, command output, plan text, MCP progress, patch updates. */
  delta(method: string, params: unknown, ref: TurnRef): ProviderEvent[] {
    const on = { threadId: this.threadId as never, runId: ref.runId as never };
    const nodeDelta = (itemId: string, delta: string): ProviderEvent[] => {
      const nodeId = this.nodeOf(itemId);
      return nodeId && delta ? [{ type: 'node.delta', ...on, nodeId: nodeId as never, delta }] : [];
    };
    switch (method) {
      case 'item/agentMessage/delta': {
        const p = ItemDelta.safeParse(params);
        return p.success ? [{ type: 'message.delta', ...on, nodeId: ref.rootNodeId as never, messageId: this.messageOf(p.data.itemId) as never, delta: p.data.delta }] : [];
      }
      case 'item/reasoning/summaryTextDelta':
      case 'item/commandExecution/outputDelta': {
        const p = ItemDelta.safeParse(params);
        return p.success ? nodeDelta(p.data.itemId, p.data.delta) : [];
      }
      case 'item/reasoning/summaryPartAdded': {
        const p = SummaryPart.safeParse(params);
        return p.success && p.data.summaryIndex > 0 ? nodeDelta(p.data.itemId, summarySeparator) : [];
      }
      case 'item/mcpToolCall/progress': {
        const p = McpProgress.safeParse(params);
        return p.success ? nodeDelta(p.data.itemId, `${p.data.message}\n`) : [];
      }
      case 'item/fileChange/patchUpdated': {
        const p = PatchUpdated.safeParse(params);
        const nodeId = p.success ? this.nodeOf(p.data.itemId) : undefined;
        return p.success && nodeId ? [{ type: 'node.detail', ...on, nodeId: nodeId as never, text: null, detail: { files: p.data.changes } }] : [];
      }
      case 'item/plan/delta': {
        const p = ItemDelta.safeParse(params);
        const planId = p.success ? this.items.get(p.data.itemId)?.planId : undefined;
        return p.success && planId ? [{ type: 'plan.delta', ...on, planId: planId as never, delta: p.data.delta }] : [];
      }
      default:
        return [];
    }
  }

  private reasoningDetail(item: NativeItem, nodeId: string, ref: TurnRef): ProviderEvent {
    const r = Reasoning.safeParse(item);
    const summary = r.success ? r.data.summary : [];
    // Raw reasoning content is kept as detail; the node's text is the summary the user may read.
    return { type: 'node.detail', threadId: this.threadId as never, runId: ref.runId as never, nodeId: nodeId as never, text: summary.join(summarySeparator), detail: r.success && r.data.content.length ? { content: r.data.content } : {} };
  }

  /** A plan item is a proposed plan (plan collaboration mode): an artifact, streamed, final when the item completes. */
  private plan(started: boolean, item: NativeItem, ref: TurnRef): ProviderEvent[] {
    const known = this.items.get(item.id)?.planId;
    if (!started && !known) return [];
    const planId = known ?? this.ids.next('plan');
    this.items.set(item.id, { planId });
    const text = started ? '' : PlanItem.safeParse(item).data?.text ?? '';
    return [{ type: 'plan.updated', threadId: this.threadId as never, runId: ref.runId as never, nodeId: ref.rootNodeId as never, planId: planId as never, kind: 'proposed_plan', text, steps: [], final: !started }];
  }
}
