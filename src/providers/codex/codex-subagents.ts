import { z } from 'zod';
import type { NodeId, PlanArtifactId, ProviderThreadId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';
import { CodexChildThreads } from './codex-child-threads.js';
import { itemFrames, notificationFrames } from './codex-frames.js';
import { CodexItems, summarySeparator, type NativeItem, type TurnRef } from './codex-items.js';

/**
 * Codex's subagents -> subagent nodes. Measured on codex 0.169.0 (docs/codex.md): a spawn is
 * an item of the spawning thread's turn (v2: `subAgentActivity` `started`, naming the child's
 * thread; v1: `collabAgentToolCall` `spawnAgent`, whose completion names it); the child is a
 * native thread of its own whose notifications come on the same connection, its turns naming
 * the root turn (`rootTurnId`); its `turn/completed` ends it. Waits, closes and messages are
 * `collabAgentToolCall` items of the sender's turn.
 *
 * A child is a node of kind `subagent` under the node of the turn that spawned it, bound to
 * its native thread (`nativeThreadId` in its detail). Its items are nodes under it; its text
 * is the node's output and its last message the node's text, never a conversation message;
 * its todo list is a plan of its node; its approvals and questions are requests on its nodes.
 * Its turns are never the run's: its end ends its node only.
 *
 * The child's native thread is a provider thread of Baton's (`subagent.thread`), owned by the
 * node that spawned it and named in each of its nodes' detail (`providerThreadId`): a
 * follow-up task to the same child is a later node on the same provider thread.
 */

const OnThread = z.looseObject({ threadId: z.string() });

const turnEnd = (s: string): 'completed' | 'interrupted' | 'failed' =>
  s === 'completed' ? 'completed' : s === 'interrupted' ? 'interrupted' : 'failed';
const planStatus = (s: string): 'pending' | 'in_progress' | 'completed' =>
  s === 'inProgress' ? 'in_progress' : s === 'completed' ? 'completed' : 'pending';

/** One subagent: a child thread working for a run of ours, as one node. */
interface Child {
  nodeId: NodeId;
  /** Its items' turn: the spawning run, with the child's node as their root. */
  ref: TurnRef;
  items: CodexItems;
  /** The spawning item (a tool call id), if a spawn was seen. */
  spawnItemId: string | null;
  /** The node of the turn that spawned it. */
  parentNodeId: NodeId;
  /** Its native thread, once Codex named it, and that thread's provider thread. */
  nativeThreadId: string | null;
  providerThreadId: ProviderThreadId | null;
  title: string;
  /** Its native turns, and the one running now. */
  turns: Set<string>;
  running: string | null;
  /** Message items seen (their deltas stream into the node's output), the last message's text. */
  messages: Set<string>;
  text: string | null;
  plans: Map<string, PlanArtifactId>;
  ended: boolean;
}

/** What the subagents need of the normalizer: the thread it drives and the attempts of its turns. */
export interface SubagentHost {
  readonly nativeThreadId: string | null;
  turnOf(nativeTurnId: string): TurnRef | undefined;
}

export class CodexSubagents {
  /** By native thread: the child node that thread's frames go to now. */
  private readonly byThread = new Map<string, Child>();
  private readonly bySpawn = new Map<string, Child>();
  private readonly all: Child[] = [];
  /** The children's native threads as provider threads (one per child conversation, kept across follow-ups). */
  private readonly threads: CodexChildThreads;

  constructor(
    private readonly threadId: ThreadId,
    private readonly ids: IdSource,
    private readonly host: SubagentHost,
    knownThreadOf?: (nativeThreadRef: string) => string | null,
  ) {
    this.threads = new CodexChildThreads(threadId, ids, knownThreadOf);
  }

  /** Whether a thread item is a multi-agent one (a spawn, a wait, a close...). */
  static isCollab(item: NativeItem): boolean {
    return item.type === 'collabAgentToolCall' || item.type === 'subAgentActivity';
  }

  private on(ref: TurnRef) {
    return { threadId: this.threadId, runId: ref.runId };
  }

  /** A multi-agent item of a turn (ours or a child's): `parent` is that turn, its root node the spawner. */
  item(started: boolean, item: NativeItem, parent: TurnRef): ProviderEvent[] {
    if (item.type === 'subAgentActivity') {
      const a = itemFrames.subAgentActivity.safeParse(item);
      if (!a.success || a.data.kind !== 'started' || this.bySpawn.has(item.id)) return [];
      const { agentThreadId, agentPath, model, reasoningEffort } = a.data;
      return this.spawn(parent, item.id, agentThreadId, agentPath, {
        tool: 'spawn_agent',
        callId: item.id,
        agentPath,
        model: model ?? null,
        reasoningEffort: reasoningEffort ?? null,
      });
    }
    const c = itemFrames.collabAgentToolCall.safeParse(item);
    if (!c.success) return [];
    const call = c.data;
    if (call.tool === 'spawnAgent') {
      const receiver = call.receiverThreadIds[0] ?? null;
      const known = this.bySpawn.get(item.id);
      const events = known
        ? []
        : this.spawn(parent, item.id, receiver, (call.prompt ?? 'subagent').split('\n')[0]!.slice(0, 80), {
            tool: 'spawn_agent',
            callId: item.id,
            prompt: call.prompt ?? null,
          });
      const child = this.bySpawn.get(item.id)!;
      if (started) return events;
      if (receiver && !child.nativeThreadId) events.push(...this.bind(child, receiver));
      events.push({
        type: 'node.detail',
        ...this.on(child.ref),
        nodeId: child.nodeId,
        text: null,
        detail: { nativeThreadId: child.nativeThreadId, ...this.threadDetail(child), model: call.model ?? null },
      });
      // A spawn that failed started no thread: nothing else will end its node.
      return call.status === 'failed' ? [...events, ...this.end(child, 'failed')] : events;
    }
    if (started) return [];
    // A wait, close or message to children: what became of it, on each child's node.
    return call.receiverThreadIds.flatMap((id) => {
      const child = this.byThread.get(id);
      if (!child) return [];
      const agent = call.agentsStates[id] ?? null;
      const closed = (call.tool === 'closeAgent' && call.status === 'completed') || agent?.status === 'shutdown';
      return [
        {
          type: 'node.detail' as const,
          ...this.on(child.ref),
          nodeId: child.nodeId,
          text: null,
          detail: { lastCall: { tool: call.tool, status: call.status }, agent },
        },
        ...(closed ? this.threads.changed(id, 'closed') : []),
      ];
    });
  }

  private spawn(
    parent: TurnRef,
    spawnItemId: string | null,
    nativeThreadId: string | null,
    title: string,
    detail: Record<string, unknown>,
  ): ProviderEvent[] {
    const nodeId = this.ids.next('node');
    const child: Child = {
      nodeId,
      ref: { runId: parent.runId, attemptId: parent.attemptId, rootNodeId: nodeId },
      items: new CodexItems(this.threadId, this.ids),
      spawnItemId,
      parentNodeId: parent.rootNodeId,
      nativeThreadId: null,
      providerThreadId: null,
      title,
      turns: new Set(),
      running: null,
      messages: new Set(),
      text: null,
      plans: new Map(),
      ended: false,
    };
    this.all.push(child);
    if (spawnItemId) this.bySpawn.set(spawnItemId, child);
    const bound = nativeThreadId ? this.bind(child, nativeThreadId) : [];
    const on = this.on(parent);
    return [
      {
        type: 'node.started',
        ...on,
        nodeId,
        parentNodeId: parent.rootNodeId,
        attemptId: parent.attemptId,
        kind: 'subagent',
        title,
      },
      {
        type: 'node.detail',
        ...on,
        nodeId,
        text: null,
        detail: { ...detail, nativeThreadId, ...this.threadDetail(child) },
      },
      ...bound,
    ];
  }

  /** The child works on `nativeThreadId` now, on its provider thread (made for this node if none is open). */
  private bind(child: Child, nativeThreadId: string): ProviderEvent[] {
    child.nativeThreadId = nativeThreadId;
    this.byThread.set(nativeThreadId, child);
    const { providerThreadId, events } = this.threads.bind(nativeThreadId, {
      runId: child.ref.runId,
      nodeId: child.nodeId,
    });
    child.providerThreadId = providerThreadId;
    return events;
  }

  private threadDetail(child: Child): { providerThreadId?: ProviderThreadId } {
    return child.providerThreadId ? { providerThreadId: child.providerThreadId } : {};
  }

  /** Whether a native thread is one of our children's. */
  knows(nativeThreadId: string): boolean {
    return this.byThread.has(nativeThreadId);
  }

  /** Where a request raised on a child's thread belongs: the run, and the node of its item (else the child's own). */
  requestAt(threadId: string, turnId: string, itemId: string): { ref: TurnRef; parentNodeId: NodeId } | null {
    const child = this.byThread.get(threadId);
    if (!child || !child.turns.has(turnId)) return null;
    return { ref: child.ref, parentNodeId: child.items.nodeOf(itemId) ?? child.nodeId };
  }

  /** Where a child's MCP server asks its form: under the child's running call of that server, else its node. */
  formAt(threadId: string, turnId: string, server: string): { ref: TurnRef; parentNodeId: NodeId } | null {
    const child = this.byThread.get(threadId);
    if (!child || !child.turns.has(turnId)) return null;
    return { ref: child.ref, parentNodeId: child.items.runningMcpCall(server) ?? child.nodeId };
  }

  /** The children's turns still running (an interrupt of the run stops them too: Codex does not). */
  runningTurns(): { threadId: string; turnId: string }[] {
    return this.all.flatMap((c) =>
      !c.ended && c.running && c.nativeThreadId ? [{ threadId: c.nativeThreadId, turnId: c.running }] : [],
    );
  }

  /**
   * The session is gone: every child still open ends interrupted (no end of theirs will come),
   * and every child's provider thread with it (a later session that meets the child makes another).
   */
  closeAll(): ProviderEvent[] {
    return [...this.all.filter((c) => !c.ended).flatMap((c) => this.end(c, 'interrupted')), ...this.threads.loseAll()];
  }

  /**
   * A notification about a child's thread, as events of its node; null when it is not about a
   * child of ours (the normalizer's own thread, or a thread Baton knows nothing of).
   */
  notification(method: string, params: unknown): ProviderEvent[] | null {
    const threadId = OnThread.safeParse(params).data?.threadId;
    if (!threadId || threadId === this.host.nativeThreadId) return null;
    if (method === 'turn/started') return this.turnStarted(params);
    const child = this.byThread.get(threadId);
    if (!child) return null;
    switch (method) {
      case 'turn/completed': {
        const p = notificationFrames[method].safeParse(params);
        if (!p.success || !child.turns.has(p.data.turn.id)) return [];
        const ended = child.running ? this.threads.changed(child.nativeThreadId, 'turn_ended') : [];
        child.running = null;
        const error = p.data.turn.error?.message;
        return [...ended, ...this.end(child, turnEnd(p.data.turn.status), error ? { error } : {})];
      }
      case 'item/started':
      case 'item/completed':
        return this.onTurn(child, notificationFrames[method], params, (p) =>
          this.childItem(child, method === 'item/started', p.item),
        );
      case 'item/agentMessage/delta':
        return this.onTurn(child, notificationFrames[method], params, (p) => this.said(child, p.itemId, p.delta));
      case 'item/reasoning/summaryTextDelta':
      case 'item/commandExecution/outputDelta':
        return this.onTurn(child, notificationFrames[method], params, (p) =>
          child.items.nodeDelta(p.itemId, p.delta, child.ref),
        );
      case 'item/reasoning/summaryPartAdded':
        return this.onTurn(child, notificationFrames[method], params, (p) =>
          p.summaryIndex > 0 ? child.items.nodeDelta(p.itemId, summarySeparator, child.ref) : [],
        );
      case 'item/mcpToolCall/progress':
        return this.onTurn(child, notificationFrames[method], params, (p) =>
          child.items.nodeDelta(p.itemId, `${p.message}\n`, child.ref),
        );
      case 'item/fileChange/patchUpdated':
        return this.onTurn(child, notificationFrames[method], params, (p) =>
          child.items.patchUpdated(p.itemId, p.changes, child.ref),
        );
      case 'item/plan/delta':
        return this.onTurn(child, notificationFrames[method], params, (p) =>
          child.items.planDelta(p.itemId, p.delta, child.ref),
        );
      case 'turn/plan/updated':
        return this.onTurn(child, notificationFrames[method], params, (p) => {
          // Its own todo list, on its node: the root's plan is never replaced by a child's.
          const planId = child.plans.get(p.turnId) ?? this.ids.next('plan');
          child.plans.set(p.turnId, planId);
          return [
            {
              type: 'plan.updated',
              ...this.on(child.ref),
              nodeId: child.nodeId,
              planId,
              kind: 'todo_list',
              text: p.explanation ?? null,
              steps: p.plan.map((s) => ({ text: s.step, status: planStatus(s.status) })),
            },
          ];
        });
      case 'error': {
        const p = notificationFrames[method].safeParse(params);
        if (!p.success) return [];
        const retry = p.data.willRetry ? ' (retrying)' : '';
        return [{ type: 'warning', ...this.on(child.ref), message: `Codex subagent: ${p.data.error.message}${retry}` }];
      }
      default:
        // Its status, diffs, token counts: the child's node shows none of them.
        return [];
    }
  }

  /** A frame about one of the child's turns. */
  private onTurn<P extends { turnId: string }>(
    child: Child,
    schema: z.ZodType<P>,
    params: unknown,
    then: (p: P) => ProviderEvent[],
  ): ProviderEvent[] {
    const p = schema.safeParse(params);
    return p.success && child.turns.has(p.data.turnId) ? then(p.data) : [];
  }

  /**
   * A child's turn starts: the child spawned for it (or, for a thread whose spawn Baton did not
   * see, a child adopted under the root turn it names); a child that had ended is asked again
   * (a follow-up task) and is a new node.
   */
  private turnStarted(params: unknown): ProviderEvent[] | null {
    const p = notificationFrames['turn/started'].safeParse(params);
    if (!p.success) return null;
    const { threadId } = p.data;
    const { id, rootTurnId } = p.data.turn;
    const root = rootTurnId ? this.host.turnOf(rootTurnId) : undefined;
    const known = this.byThread.get(threadId);
    const events: ProviderEvent[] = [];
    let named: Record<string, unknown> = {};
    if (!known || known.ended) {
      // A v1 spawn names its thread when the spawn completes: a turn that comes first is that spawn's.
      const unbound = known
        ? undefined
        : this.all.find((c) => !c.ended && !c.nativeThreadId && c.ref.runId === root?.runId);
      const parent = root ?? (known ? this.parentOf(known) : undefined);
      if (unbound) {
        events.push(...this.bind(unbound, threadId));
        // Bound by its turn: the node names its thread now (its spawn's completion says it again).
        named = { nativeThreadId: threadId, ...this.threadDetail(unbound) };
      } else if (parent)
        events.push(...this.spawn(parent, null, threadId, known?.title ?? 'subagent', { adopted: !known }));
      else return null;
    }
    const child = this.byThread.get(threadId)!;
    child.turns.add(id);
    child.running = id;
    return [
      ...events,
      {
        type: 'node.detail',
        ...this.on(child.ref),
        nodeId: child.nodeId,
        text: null,
        detail: { nativeTurnId: id, ...named },
      },
      ...this.threads.changed(threadId, 'turn_began'),
    ];
  }

  /** The turn a child's node hangs under: its parent node, in its run. */
  private parentOf(child: Child): TurnRef {
    return { runId: child.ref.runId, attemptId: child.ref.attemptId, rootNodeId: child.parentNodeId };
  }

  /** One of the child's own items: its messages are the node's text, the rest nodes under it. */
  private childItem(child: Child, started: boolean, item: NativeItem): ProviderEvent[] {
    if (CodexSubagents.isCollab(item)) return this.item(started, item, child.ref);
    if (item.type !== 'agentMessage') return child.items.item(started, item, child.ref);
    if (started) return this.said(child, item.id, '');
    const text = itemFrames.agentMessage.safeParse(item).data?.text ?? '';
    child.text = text;
    return [];
  }

  /** Streamed text of a child's message: its node's output, one message a paragraph. */
  private said(child: Child, itemId: string, delta: string): ProviderEvent[] {
    const first = !child.messages.has(itemId);
    child.messages.add(itemId);
    const text = (first && child.messages.size > 1 ? '\n\n' : '') + delta;
    return text ? [{ type: 'node.delta', ...this.on(child.ref), nodeId: child.nodeId, delta: text }] : [];
  }

  /** A child ends: its node with its last message as its text. */
  private end(child: Child, status: 'completed' | 'interrupted' | 'failed', detail = {}): ProviderEvent[] {
    if (child.ended) return [];
    child.ended = true;
    child.running = null;
    const on = { ...this.on(child.ref), nodeId: child.nodeId };
    return [
      ...(child.text !== null || Object.keys(detail).length
        ? [{ type: 'node.detail' as const, ...on, text: child.text, detail }]
        : []),
      { type: 'node.completed', ...on, status },
    ];
  }
}
