import { z } from 'zod';
import { Question } from '../../domain/entities.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';
import { CodexItems, type NativeItem, type TurnRef } from './codex-items.js';
import { serverNotificationMethods } from './protocol-methods.js';

/**
 * Codex notifications and server requests -> Baton's provider events. The normalizer
 * owns the correlation state of one app thread's Codex thread: which native turn is which
 * attempt, which native item is which node or message, which callback is which request.
 * Native ids stay evidence; every event it emits carries app ids.
 */

export type { TurnRef } from './codex-items.js';

export interface PendingRequest {
  requestId: string;
  rpcId: number | string;
  method: string;
}

// The parts of Codex's frames Baton reads; everything else passes untouched.
const WithTurn = z.object({ threadId: z.string(), turn: z.object({ id: z.string(), status: z.string(), error: z.object({ message: z.string() }).loose().nullable().optional() }).loose() }).loose();
const WithItem = z.object({ threadId: z.string(), turnId: z.string(), item: z.object({ type: z.string(), id: z.string() }).loose() }).loose();
const ItemNote = z.object({ threadId: z.string(), turnId: z.string(), itemId: z.string() }).loose();
const Plan = z.object({ threadId: z.string(), turnId: z.string(), explanation: z.string().nullable().optional(), plan: z.array(z.object({ step: z.string(), status: z.string() })) }).loose();
const ApprovalRequest = z.object({ threadId: z.string(), turnId: z.string(), itemId: z.string() }).loose();
const ThreadStatus = z.object({ threadId: z.string(), status: z.object({ type: z.string(), activeFlags: z.array(z.string()).optional() }).loose() }).loose();
const Diff = z.object({ threadId: z.string(), turnId: z.string(), diff: z.string() }).loose();
const Resolved = z.object({ threadId: z.string(), requestId: z.union([z.string(), z.number()]) }).loose();
const ErrorNote = z.object({ threadId: z.string(), turnId: z.string().optional(), error: z.object({ message: z.string() }).loose(), willRetry: z.boolean().optional() }).loose();

/** Codex's questions, as Baton keeps them (its `isOther`/`isSecret` are not kept). */
const AskedQuestions = z.array(Question.extend({ options: Question.shape.options.default(null) }));

const requestKinds: Record<string, 'command' | 'file_change' | 'user_input'> = {
  'item/commandExecution/requestApproval': 'command',
  'item/fileChange/requestApproval': 'file_change',
  'item/tool/requestUserInput': 'user_input',
  execCommandApproval: 'command',
  applyPatchApproval: 'file_change',
};

const turnStatus = (s: string): 'completed' | 'interrupted' | 'failed' => (s === 'completed' ? 'completed' : s === 'interrupted' ? 'interrupted' : 'failed');
const planStatus = (s: string): 'pending' | 'in_progress' | 'completed' => (s === 'inProgress' ? 'in_progress' : s === 'completed' ? 'completed' : 'pending');

export class CodexNormalizer {
  /** Native turn id -> the attempt it runs. */
  readonly turns = new Map<string, TurnRef>();
  /** The attempt whose turn/start is in flight: the first unknown turn on our thread is it. */
  pendingStart: TurnRef | null = null;
  private readonly items: CodexItems;
  private readonly plans = new Map<string, string>();
  readonly requests = new Map<string, PendingRequest>();
  /** Frames that were valid JSON-RPC but not understood. */
  unknown = 0;

  constructor(
    private readonly threadId: string,
    private readonly ids: IdSource,
    private readonly sessionId: () => string,
  ) {
    this.items = new CodexItems(threadId, ids);
  }

  nativeThreadId: string | null = null;

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

  notification(method: string, params: unknown): ProviderEvent[] {
    const t = this.threadId as never;
    switch (method) {
      case 'turn/started': {
        const p = WithTurn.safeParse(params);
        if (!p.success || p.data.threadId !== this.nativeThreadId) return [];
        const ref = this.turn(p.data.turn.id);
        return ref ? [{ type: 'turn.started', threadId: t, runId: ref.runId as never, attemptId: ref.attemptId as never, nodeId: ref.rootNodeId as never, nativeTurnRef: p.data.turn.id }] : [];
      }
      case 'turn/completed': {
        const p = WithTurn.safeParse(params);
        if (!p.success || p.data.threadId !== this.nativeThreadId) return [];
        const ref = this.turn(p.data.turn.id);
        if (!ref) return [];
        const status = turnStatus(p.data.turn.status);
        const error = p.data.turn.error ? { code: 'provider_error' as const, message: p.data.turn.error.message } : null;
        return [{ type: 'turn.completed', threadId: t, runId: ref.runId as never, attemptId: ref.attemptId as never, nodeId: ref.rootNodeId as never, status, error }];
      }
      case 'item/started':
      case 'item/completed': {
        const p = WithItem.safeParse(params);
        if (!p.success || p.data.threadId !== this.nativeThreadId) return [];
        const ref = this.turn(p.data.turnId);
        if (!ref) return [];
        return this.items.item(method === 'item/started', p.data.item as NativeItem, ref);
      }
      case 'item/agentMessage/delta':
      case 'item/reasoning/summaryTextDelta':
      case 'item/reasoning/summaryPartAdded':
      case 'item/commandExecution/outputDelta':
      case 'item/mcpToolCall/progress':
      case 'item/fileChange/patchUpdated':
      case 'item/plan/delta': {
        const p = ItemNote.safeParse(params);
        if (!p.success || p.data.threadId !== this.nativeThreadId) return [];
        const ref = this.turn(p.data.turnId);
        return ref ? this.items.delta(method, params, ref) : [];
      }
      case 'turn/plan/updated': {
        const p = Plan.safeParse(params);
        if (!p.success) return [];
        const ref = this.turn(p.data.turnId);
        if (!ref) return [];
        const planId = this.plans.get(p.data.turnId) ?? this.ids.next('plan');
        this.plans.set(p.data.turnId, planId);
        return [{
          type: 'plan.updated', threadId: t, runId: ref.runId as never, nodeId: ref.rootNodeId as never, planId: planId as never, kind: 'todo_list',
          text: p.data.explanation ?? null, steps: p.data.plan.map((s) => ({ text: s.step, status: planStatus(s.status) })),
        }];
      }
      case 'thread/status/changed': {
        // Codex's own view of its thread drives the session's status: running, waiting on the user, idle.
        const p = ThreadStatus.safeParse(params);
        if (!p.success || p.data.threadId !== this.nativeThreadId) return [];
        const { type, activeFlags = [] } = p.data.status;
        const status = type === 'active' ? (activeFlags.some((f) => f.startsWith('waitingOn')) ? 'waiting' : 'running') : type === 'idle' ? 'ready' : null;
        return status ? [{ type: 'session.status', threadId: t, sessionId: this.sessionId() as never, provider: 'codex', status, reason: null }] : [];
      }
      case 'turn/diff/updated': {
        const p = Diff.safeParse(params);
        if (!p.success || p.data.threadId !== this.nativeThreadId) return [];
        const ref = this.turn(p.data.turnId);
        return ref ? [{ type: 'diff.updated', threadId: t, runId: ref.runId as never, diff: p.data.diff }] : [];
      }
      case 'serverRequest/resolved': {
        const p = Resolved.safeParse(params);
        if (!p.success) return [];
        const pending = [...this.requests.values()].find((r) => r.rpcId === p.data.requestId);
        if (!pending) return [];
        this.requests.delete(pending.requestId);
        return [{ type: 'request.closed', threadId: t, requestId: pending.requestId as never, reason: 'resolved by the provider' }];
      }
      case 'error': {
        const p = ErrorNote.safeParse(params);
        if (!p.success) return [];
        const ref = p.data.turnId ? this.turns.get(p.data.turnId) : undefined;
        return [{ type: 'warning', threadId: t, runId: (ref?.runId ?? null) as never, message: `Codex: ${p.data.error.message}${p.data.willRetry ? ' (retrying)' : ''}` }];
      }
      default:
        // Known methods Baton does not map are fine; a method this Codex version does not
        // define is counted (it is in the frame log already).
        if (!serverNotificationMethods.has(method)) this.unknown += 1;
        return [];
    }
  }

  /** A server request (approval, question) -> a runtime request, remembering its live callback. */
  serverRequest(rpcId: number | string, method: string, params: unknown): ProviderEvent[] {
    const kind = requestKinds[method];
    const p = ApprovalRequest.safeParse(params);
    if (!kind || !p.success) {
      this.unknown += 1;
      return [];
    }
    const ref = this.turn(p.data.turnId);
    if (!ref) return [];
    const requestId = this.ids.next('request');
    this.requests.set(requestId, { requestId, rpcId, method });
    const details = p.data as Record<string, unknown>;
    const questions = Array.isArray(details.questions) ? (details.questions as { question?: string }[]) : [];
    const prompt = kind === 'user_input' ? (questions[0]?.question ?? 'The agent has questions') : String(details.command ?? details.reason ?? `Allow ${kind.replace('_', ' ')}?`);
    const parent = this.items.nodeOf(p.data.itemId) ?? ref.rootNodeId;
    const nodeId = this.ids.next('node');
    const opened: ProviderEvent = {
      type: 'request.opened', threadId: this.threadId as never, runId: ref.runId as never, requestId: requestId as never, nodeId: nodeId as never,
      parentNodeId: parent as never, kind, prompt, details, providerSessionId: this.sessionId() as never,
    };
    if (kind !== 'user_input') return [opened];
    // Structured questions are also an artifact of the run, on the request's node.
    return [opened, {
      type: 'plan.updated', threadId: this.threadId as never, runId: ref.runId as never, nodeId: nodeId as never, planId: this.ids.next('plan') as never, kind: 'questions',
      text: prompt, steps: [], questions: AskedQuestions.safeParse(questions).data ?? [],
    }];
  }
}
