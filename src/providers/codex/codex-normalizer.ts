import type { z } from 'zod';
import type { PlanArtifactId, ProviderSessionId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';
import type { NormalizerScope, ProviderNormalizer } from '../provider.js';
import type { RpcId } from '../transport/json-rpc.js';
import { inboundFrame, notificationFrames } from './codex-frames.js';
import { CodexRequests, type PendingRequest } from './codex-requests.js';
import { CodexItems, summarySeparator, type TurnRef } from './codex-items.js';
import { CodexSessionStatusTracker } from './codex-session-status.js';
import { CodexSubagents } from './codex-subagents.js';
import { serverNotificationMethods } from './protocol-methods.js';

/**
 * Codex notifications and server requests -> Baton's provider events. The normalizer
 * owns the correlation state of one app thread's Codex thread over one session: which
 * native turn is which attempt, which native item is which node or message, which
 * callback is which request. Native ids stay evidence; every event it emits carries app ids.
 */

export type { TurnRef } from './codex-items.js';
export type { PendingRequest } from './codex-requests.js';

const turnStatus = (s: string): 'completed' | 'interrupted' | 'failed' =>
  s === 'completed' ? 'completed' : s === 'interrupted' ? 'interrupted' : 'failed';
const planStatus = (s: string): 'pending' | 'in_progress' | 'completed' =>
  s === 'inProgress' ? 'in_progress' : s === 'completed' ? 'completed' : 'pending';

/** Codex's normalizer, as the provider registers it (the adapter makes its own through it too). */
/** A Codex normalizer's scope: with the provider threads a subagent of the thread already has, by native thread. */
export interface CodexNormalizerScope extends NormalizerScope {
  /** The provider thread of a child an earlier session met, if it has not ended (the host's `subagentThreadOf`). */
  readonly subagentThreadOf?: (nativeThreadRef: string) => string | null;
}

export const createCodexNormalizer = (scope: CodexNormalizerScope): CodexNormalizer => new CodexNormalizer(scope);

export class CodexNormalizer implements ProviderNormalizer {
  /** Native turn id -> the attempt it runs. */
  readonly turns = new Map<string, TurnRef>();
  /** The attempt whose turn/start is in flight: the first unknown turn on our thread is it. */
  pendingStart: TurnRef | null = null;
  private readonly threadId: ThreadId;
  private readonly sessionId: ProviderSessionId;
  private readonly ids: IdSource;
  private readonly items: CodexItems;
  /** The subagents Codex runs for our turns, each a child thread on this connection. */
  readonly subagents: CodexSubagents;
  private readonly plans = new Map<string, PlanArtifactId>();
  /** Its server requests waiting on the user, by Baton's request id. */
  private readonly asks: CodexRequests;
  private readonly statuses = new CodexSessionStatusTracker();
  /** Frames that were valid JSON-RPC but not understood. */
  unknown = 0;
  nativeThreadId: string | null = null;

  constructor(scope: CodexNormalizerScope) {
    this.threadId = scope.threadId;
    this.sessionId = scope.sessionId;
    this.ids = scope.ids;
    this.items = new CodexItems(scope.threadId, scope.ids);
    this.subagents = new CodexSubagents(scope.threadId, scope.ids, this, scope.subagentThreadOf);
    const normalizer = this;
    this.asks = new CodexRequests(scope, this.items, this.subagents, {
      get nativeThreadId() {
        return normalizer.nativeThreadId;
      },
      turn: (nativeTurnId) => this.turn(nativeTurnId),
    });
  }

  /** The server requests waiting on the user, by Baton's request id (the adapter answers and forgets them). */
  get requests(): Map<string, PendingRequest> {
    return this.asks.pending;
  }

  /** The attempt of a native turn of our thread, if it is bound (a subagent's turns name their root turn). */
  turnOf(nativeTurnId: string): TurnRef | undefined {
    return this.turns.get(nativeTurnId);
  }

  /**
   * A frame as Codex sent it: a server request when it has an id, else a notification. The
   * adapter, whose JSON-RPC connection has read the envelope already, calls `notification`
   * and `serverRequest` itself, so a frame is validated once.
   */
  normalize(frame: unknown): ProviderEvent[] {
    const f = inboundFrame.safeParse(frame);
    if (!f.success) return [];
    return f.data.id === undefined
      ? this.notification(f.data.method, f.data.params)
      : this.serverRequest(f.data.id, f.data.method, f.data.params);
  }

  /** The attempt of a native turn, binding a started turn to the attempt that asked for it. */
  private turn(nativeTurnId: string): TurnRef | null {
    const known = this.turns.get(nativeTurnId);
    if (known) return known;
    if (!this.pendingStart) return null;
    const ref = this.pendingStart;
    this.bindTurn(nativeTurnId, ref);
    return ref;
  }

  bindTurn(nativeTurnId: string, ref: TurnRef): void {
    if (!this.turns.has(nativeTurnId)) this.turns.set(nativeTurnId, ref);
    if (this.pendingStart === ref) this.pendingStart = null;
    for (const wake of this.turnWaiters.get(ref.attemptId) ?? []) wake(nativeTurnId);
    this.turnWaiters.delete(ref.attemptId);
  }

  private readonly turnWaiters = new Map<string, ((nativeTurnId: string) => void)[]>();
  /** Native turns Codex said `turn/started` for, and who waits for that. */
  private readonly started = new Set<string>();
  private readonly startWaiters = new Map<string, (() => void)[]>();

  /**
   * Whether Codex has started a native turn, waiting up to `timeoutMs`: it answers `turn/start`
   * with the turn's id some 60 ms before it holds the turn as active, and refuses a
   * `turn/interrupt` in between ("no active turn to interrupt"; measured).
   */
  whenTurnStarted(nativeTurnId: string, timeoutMs: number): Promise<boolean> {
    if (this.started.has(nativeTurnId)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const waiters = this.startWaiters.get(nativeTurnId) ?? [];
      waiters.push(() => (clearTimeout(timer), resolve(true)));
      this.startWaiters.set(nativeTurnId, waiters);
    });
  }

  private markStarted(nativeTurnId: string): void {
    this.started.add(nativeTurnId);
    for (const wake of this.startWaiters.get(nativeTurnId) ?? []) wake();
    this.startWaiters.delete(nativeTurnId);
  }

  /** The native turn of an attempt, as soon as Codex has named it (null after `timeoutMs`). */
  whenTurnBound(attemptId: string, timeoutMs: number): Promise<string | null> {
    const known = this.nativeTurnOf(attemptId);
    if (known) return Promise.resolve(known);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), timeoutMs);
      const waiters = this.turnWaiters.get(attemptId) ?? [];
      waiters.push((id) => (clearTimeout(timer), resolve(id)));
      this.turnWaiters.set(attemptId, waiters);
    });
  }

  /** The native turn currently bound to an attempt, if its id is known. */
  nativeTurnOf(attemptId: string): string | null {
    for (const [native, ref] of this.turns) if (ref.attemptId === attemptId) return native;
    return null;
  }

  /** A frame about a turn of our native thread, read with its method's schema, for the attempt the turn runs. */
  private onTurn<P extends { threadId: string; turnId: string }>(
    schema: z.ZodType<P>,
    params: unknown,
    then: (p: P, ref: TurnRef) => ProviderEvent[],
  ): ProviderEvent[] {
    const p = schema.safeParse(params);
    if (!p.success || p.data.threadId !== this.nativeThreadId) return [];
    const ref = this.turn(p.data.turnId);
    return ref ? then(p.data, ref) : [];
  }

  /** Codex's own view of its threads drives the session's status: running, waiting on the user, idle. */
  private statusChanged(params: unknown): ProviderEvent[] {
    const p = notificationFrames['thread/status/changed'].safeParse(params);
    if (!p.success) return [];
    const own = p.data.threadId === this.nativeThreadId;
    if (!own && !this.subagents.knows(p.data.threadId)) return [];
    const status = this.statuses.changed(p.data.threadId, p.data.status, own);
    return status
      ? [
          {
            type: 'session.status',
            threadId: this.threadId,
            sessionId: this.sessionId,
            provider: 'codex',
            status,
            reason: null,
          },
        ]
      : [];
  }

  notification(method: string, params: unknown): ProviderEvent[] {
    const t = this.threadId;
    // Before the child's frames go to its node: a child waiting on the user makes the session wait.
    if (method === 'thread/status/changed') return this.statusChanged(params);
    // A child thread's frames are its subagent node's, never our turn's.
    const child = this.subagents.notification(method, params);
    if (child) return child;
    switch (method) {
      case 'turn/started': {
        const p = notificationFrames[method].safeParse(params);
        if (!p.success || p.data.threadId !== this.nativeThreadId) return [];
        this.markStarted(p.data.turn.id);
        const ref = this.turn(p.data.turn.id);
        return ref
          ? [
              {
                type: 'turn.started',
                threadId: t,
                runId: ref.runId,
                attemptId: ref.attemptId,
                nodeId: ref.rootNodeId,
                nativeTurnRef: p.data.turn.id,
              },
            ]
          : [];
      }
      case 'turn/completed': {
        const p = notificationFrames[method].safeParse(params);
        if (!p.success || p.data.threadId !== this.nativeThreadId) return [];
        const ref = this.turn(p.data.turn.id);
        if (!ref) return [];
        const status = turnStatus(p.data.turn.status);
        const error = p.data.turn.error
          ? { code: 'provider_error' as const, message: p.data.turn.error.message }
          : null;
        return [
          {
            type: 'turn.completed',
            threadId: t,
            runId: ref.runId,
            attemptId: ref.attemptId,
            nodeId: ref.rootNodeId,
            status,
            error,
          },
        ];
      }
      case 'item/started':
      case 'item/completed':
        return this.onTurn(notificationFrames[method], params, (p, ref) =>
          CodexSubagents.isCollab(p.item)
            ? this.subagents.item(method === 'item/started', p.item, ref)
            : this.items.item(method === 'item/started', p.item, ref),
        );
      case 'item/agentMessage/delta':
        return this.onTurn(notificationFrames[method], params, (p, ref) =>
          this.items.messageDelta(p.itemId, p.delta, ref),
        );
      case 'item/reasoning/summaryTextDelta':
      case 'item/commandExecution/outputDelta':
        return this.onTurn(notificationFrames[method], params, (p, ref) =>
          this.items.nodeDelta(p.itemId, p.delta, ref),
        );
      case 'item/reasoning/summaryPartAdded':
        return this.onTurn(notificationFrames[method], params, (p, ref) =>
          p.summaryIndex > 0 ? this.items.nodeDelta(p.itemId, summarySeparator, ref) : [],
        );
      case 'item/mcpToolCall/progress':
        return this.onTurn(notificationFrames[method], params, (p, ref) =>
          this.items.nodeDelta(p.itemId, `${p.message}\n`, ref),
        );
      case 'item/fileChange/patchUpdated':
        return this.onTurn(notificationFrames[method], params, (p, ref) =>
          this.items.patchUpdated(p.itemId, p.changes, ref),
        );
      case 'item/plan/delta':
        return this.onTurn(notificationFrames[method], params, (p, ref) =>
          this.items.planDelta(p.itemId, p.delta, ref),
        );
      case 'turn/plan/updated': {
        const p = notificationFrames[method].safeParse(params);
        if (!p.success) return [];
        const ref = this.turn(p.data.turnId);
        if (!ref) return [];
        const planId = this.plans.get(p.data.turnId) ?? this.ids.next('plan');
        this.plans.set(p.data.turnId, planId);
        return [
          {
            type: 'plan.updated',
            threadId: t,
            runId: ref.runId,
            nodeId: ref.rootNodeId,
            planId,
            kind: 'todo_list',
            text: p.data.explanation ?? null,
            steps: p.data.plan.map((s) => ({ text: s.step, status: planStatus(s.status) })),
          },
        ];
      }
      case 'turn/diff/updated':
        return this.onTurn(notificationFrames[method], params, (p, ref) => [
          { type: 'diff.updated', threadId: t, runId: ref.runId, diff: p.diff },
        ]);
      case 'serverRequest/resolved': {
        const p = notificationFrames[method].safeParse(params);
        if (!p.success) return [];
        const pending = [...this.requests.values()].find((r) => r.rpcId === p.data.requestId);
        if (!pending) return [];
        this.requests.delete(pending.requestId);
        return [
          { type: 'request.closed', threadId: t, requestId: pending.requestId, reason: 'resolved by the provider' },
        ];
      }
      case 'error': {
        const p = notificationFrames[method].safeParse(params);
        if (!p.success) return [];
        const ref = p.data.turnId ? this.turns.get(p.data.turnId) : undefined;
        return [
          {
            type: 'warning',
            threadId: t,
            runId: ref?.runId ?? null,
            message: `Codex: ${p.data.error.message}${p.data.willRetry ? ' (retrying)' : ''}`,
          },
        ];
      }
      default:
        // Known methods Baton does not map are fine; a method this Codex version does not
        // define is counted (it is in the frame log already).
        if (!serverNotificationMethods.has(method)) this.unknown += 1;
        return [];
    }
  }

  /** A server request (approval, question, an MCP server's form) -> a runtime request, remembering its live callback. */
  serverRequest(rpcId: RpcId, method: string, params: unknown): ProviderEvent[] {
    const events = this.asks.serverRequest(rpcId, method, params);
    if (events) return events;
    this.unknown += 1;
    return [];
  }
}
