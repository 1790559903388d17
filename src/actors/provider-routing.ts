import { idOf, type NodeId, type RunId } from '../domain/ids.js';
import type { ProviderEvent } from '../domain/provider-events.js';
import type { StepContext } from './step-context.js';
import { agentTurn, outliveRun } from './background-routing.js';
import { routeSubagentThread } from './subagent-provider-threads.js';

type Of<T extends ProviderEvent['type']> = Extract<ProviderEvent, { type: T }>;

/**
 * Routes one normalized provider event to the entity actors it concerns. Routing never
 * decides lifecycle: a `turn.completed` goes to its node, its attempt and its run alike,
 * and each machine's guards decide what it means (only the run's own root turn ends it).
 */
export function routeProviderEvent(thread: StepContext, event: ProviderEvent): void {
  switch (event.type) {
    case 'turn.started':
      bindNativeTurn(thread, event);
      thread.deliver({ kind: 'execution_node', id: event.nodeId }, { type: 'START' });
      thread.deliver(
        { kind: 'run_attempt', id: event.attemptId },
        { type: 'TURN_STARTED', attemptId: event.attemptId },
      );
      thread.deliver({ kind: 'run', id: event.runId }, { type: 'TURN_STARTED', attemptId: event.attemptId });
      providerThreadTurn(thread, event.runId, 'TURN_BEGAN');
      return;
    case 'turn.completed':
      thread.deliver({ kind: 'execution_node', id: event.nodeId }, { type: 'END', status: event.status });
      thread.deliver(
        { kind: 'run_attempt', id: event.attemptId },
        { type: 'TURN_TERMINAL', attemptId: event.attemptId, nodeId: event.nodeId, status: event.status },
      );
      if (thread.context({ kind: 'run', id: event.runId })?.rootNodeId === event.nodeId) {
        providerThreadTurn(thread, event.runId, 'TURN_ENDED');
      }
      thread.deliver(
        { kind: 'run', id: event.runId },
        {
          type: 'TURN_TERMINAL',
          attemptId: event.attemptId,
          nodeId: event.nodeId,
          status: event.status,
          error: event.error,
        },
      );
      return;
    case 'interrupt.acknowledged':
      thread.deliver({ kind: 'run', id: event.runId }, { type: 'INTERRUPT_ACKNOWLEDGED' });
      return;
    case 'node.started':
      if (!thread.state({ kind: 'execution_node', id: event.nodeId })) {
        thread.spawn('execution_node', event.nodeId, {
          nodeId: event.nodeId,
          runId: event.runId,
          threadId: event.threadId,
          attemptId: event.attemptId,
          parentNodeId: event.parentNodeId,
          kind: event.kind,
          countsForRun: false,
          title: event.title,
        });
      }
      thread.deliver({ kind: 'execution_node', id: event.nodeId }, { type: 'START' });
      return;
    case 'node.completed':
      thread.deliver({ kind: 'execution_node', id: event.nodeId }, { type: 'END', status: event.status });
      return;
    case 'node.delta':
      thread.current.addEvent({
        type: 'node.output',
        payload: { threadId: event.threadId, runId: event.runId, nodeId: event.nodeId, delta: event.delta },
      });
      return;
    case 'node.detail':
      thread.current.addEvent({
        type: 'node.detail',
        payload: {
          threadId: event.threadId,
          runId: event.runId,
          nodeId: event.nodeId,
          text: event.text,
          detail: event.detail,
          ...(event.title ? { title: event.title } : {}),
        },
      });
      return;
    case 'message.delta':
      ensureAssistantMessage(thread, event);
      thread.current.addEvent({
        type: 'message.delta',
        payload: { threadId: event.threadId, messageId: event.messageId, delta: event.delta },
      });
      return;
    case 'message.completed':
      ensureAssistantMessage(thread, event);
      thread.current.addEvent({
        type: 'message.completed',
        payload: { threadId: event.threadId, messageId: event.messageId, text: event.text },
      });
      thread.deliver(
        { kind: 'execution_node', id: messageNodeId(event.messageId) },
        { type: 'END', status: 'completed' },
      );
      return;
    case 'plan.updated':
      thread.current.addEvent({
        type: 'plan.updated',
        payload: {
          plan: {
            id: event.planId,
            threadId: event.threadId,
            runId: event.runId,
            nodeId: event.nodeId,
            kind: event.kind,
            text: event.text,
            steps: event.steps,
            ...(event.questions ? { questions: event.questions } : {}),
            final: event.final ?? false,
          },
        },
      });
      return;
    case 'plan.delta':
      thread.current.addEvent({
        type: 'plan.delta',
        payload: { threadId: event.threadId, runId: event.runId, planId: event.planId, delta: event.delta },
      });
      return;
    case 'request.opened':
      openRequest(thread, event);
      return;
    case 'agent.turn':
      agentTurn(thread, event);
      return;
    case 'request.closed':
      thread.deliver({ kind: 'runtime_request', id: event.requestId }, { type: 'CANCEL', reason: event.reason });
      return;
    case 'node.outlives_run':
      outliveRun(thread, event);
      return;
    case 'session.status': {
      const ref = { kind: 'provider_session' as const, id: event.sessionId };
      if (!thread.state(ref))
        thread.spawn('provider_session', event.sessionId, {
          sessionId: event.sessionId,
          threadId: event.threadId,
          provider: event.provider,
        });
      const byStatus = {
        starting: 'RESTART',
        ready: 'READY',
        running: 'BUSY',
        waiting: 'WAITING',
        stopped: 'STOPPED',
        error: 'FAILED',
      } as const;
      // "ready" after work is the session going idle; before any, it is the session coming up.
      const working = ['running', 'waiting'].includes(thread.context(ref)?.status ?? '');
      thread.deliver(ref, {
        type: event.status === 'ready' && working ? 'IDLE' : byStatus[event.status],
        reason: event.reason ?? event.status,
      });
      return;
    }
    case 'thread.loaded':
      bindNativeThread(thread, event);
      thread.deliver(
        { kind: 'provider_thread', id: event.providerThreadId },
        { type: 'LOADED', nativeThreadRef: event.nativeThreadRef, resumeCursor: event.resumeCursor },
      );
      if (event.resolution) {
        thread.current.addEvent({
          type: 'thread.fork-resolved',
          payload: { threadId: event.threadId, providerThreadId: event.providerThreadId, strategy: event.resolution },
        });
        // The fork's transfer needs no text: the provider forked its own thread.
        const transferId = thread.context({ kind: 'thread_supervisor', id: event.threadId })?.forkOrigin?.transferId;
        if (transferId && event.resolution === 'native_fork')
          thread.deliver({ kind: 'context_transfer', id: transferId }, { type: 'RESOLVED_NATIVE' });
      }
      return;
    case 'subagent.thread':
      routeSubagentThread(thread, event);
      return;
    case 'thread.failed':
      thread.deliver(
        { kind: 'thread_supervisor', id: event.threadId },
        {
          type: 'PROVIDER_THREAD_FAILED',
          reason: event.reason,
          failedProviderThreadId: event.providerThreadId,
          replacementProviderThreadId: thread.current.newId('providerThread'),
          recoveryAttemptId: thread.current.newId('attempt'),
          recoveryRootNodeId: thread.current.newId('node'),
        },
      );
      return;
    case 'thread.reverted':
      reconciled(thread, event);
      return;
    case 'runtime.lost':
      runtimeLost(thread, event);
      return;
    case 'mode.updated':
      agentModeChanged(thread, event);
      return;
    case 'diff.updated':
      thread.current.addEvent({
        type: 'run.diff-updated',
        payload: { threadId: event.threadId, runId: event.runId, diff: event.diff },
      });
      return;
    case 'warning':
      thread.current.addEvent({
        type: 'runtime.warning',
        payload: { threadId: event.threadId, runId: event.runId, message: event.message },
      });
      return;
  }
}

/** The node id of an assistant message: one node per message, derived so routing needs no lookup. */
export const messageNodeId = (messageId: string): NodeId => idOf('node', `node_of_${messageId}`);

function ensureAssistantMessage(thread: StepContext, event: Of<'message.delta'> | Of<'message.completed'>): void {
  if (thread.current.view.get('messages', event.messageId)) return;
  const nodeId = messageNodeId(event.messageId);
  const run = thread.context({ kind: 'run', id: event.runId });
  thread.spawn('execution_node', nodeId, {
    nodeId,
    runId: event.runId,
    threadId: event.threadId,
    attemptId: run?.activeAttemptId ?? null,
    parentNodeId: event.nodeId,
    kind: 'assistant_message',
    countsForRun: false,
    title: null,
  });
  thread.deliver({ kind: 'execution_node', id: nodeId }, { type: 'START' });
  thread.current.addEvent({
    type: 'message.created',
    payload: {
      message: {
        id: event.messageId,
        threadId: event.threadId,
        runId: event.runId,
        nodeId,
        role: 'assistant',
        text: '',
        completed: false,
      },
    },
  });
}

function openRequest(thread: StepContext, event: Of<'request.opened'>): void {
  const kind = event.kind === 'user_input' ? 'user_input_request' : 'approval_request';
  const run = thread.context({ kind: 'run', id: event.runId });
  thread.spawn('execution_node', event.nodeId, {
    nodeId: event.nodeId,
    runId: event.runId,
    threadId: event.threadId,
    attemptId: run?.activeAttemptId ?? null,
    parentNodeId: event.parentNodeId,
    kind,
    countsForRun: false,
    title: event.prompt,
  });
  thread.deliver({ kind: 'execution_node', id: event.nodeId }, { type: 'START' });
  thread.deliver({ kind: 'execution_node', id: event.nodeId }, { type: 'WAIT' });
  // The answer goes back to the provider that asked: the run's (its thread's if the run is unknown).
  const provider = run?.provider ?? thread.require({ kind: 'thread_supervisor', id: event.threadId }).context.provider;
  thread.spawn('runtime_request', event.requestId, {
    requestId: event.requestId,
    threadId: event.threadId,
    runId: event.runId,
    nodeId: event.nodeId,
    provider,
    kind: event.kind,
    prompt: event.prompt,
    details: event.details,
    providerSessionId: event.providerSessionId,
    expiresAt: thread.requestTtlMs === null ? null : thread.current.at + thread.requestTtlMs,
    ...(event.outlivesRun ? { outlivesRun: true } : {}),
  });
}

/** The provider's conversation after a rollback, on record; a mismatch with Baton's runs is a visible warning. */
function reconciled(thread: StepContext, event: Of<'thread.reverted'>): void {
  const { type: _type, ...payload } = event;
  thread.current.addEvent({ type: 'provider-thread.reconciled', payload });
  if (event.missingTurnRefs.length === 0 && event.unexpectedTurnRefs.length === 0) return;
  thread.current.addEvent({
    type: 'runtime.warning',
    payload: {
      threadId: event.threadId,
      runId: null,
      message: `after rolling back to run ${event.runOrdinal} the provider's conversation does not match Baton's: ${event.missingTurnRefs.length} kept turn(s) missing, ${event.unexpectedTurnRefs.length} unexpected turn(s) still there`,
    },
  });
}

/**
 * The agent's mode, on record only when it differs from the one the thread shows (a new agent
 * process reports the mode its session opens in again). Thread state, not a setting: no machine
 * decides by it, and the thread's runtimeMode / interactionMode stay as the user set them.
 */
function agentModeChanged(thread: StepContext, event: Of<'mode.updated'>): void {
  const shown = thread.current.view.get('threads', event.threadId)?.agentMode;
  if (shown?.id === event.modeId && shown.name === event.name) return;
  thread.current.addEvent({
    type: 'thread.agent-mode-changed',
    payload: { threadId: event.threadId, runId: event.runId, mode: { id: event.modeId, name: event.name } },
  });
}

/** The provider process died: its callbacks are gone and the active run ends by policy. */
function runtimeLost(thread: StepContext, event: Of<'runtime.lost'>): void {
  for (const r of thread.current.view.list(
    'requests',
    event.threadId,
    (r) => (r.status === 'pending' || r.status === 'answering') && r.responseCapability.type === 'live',
  )) {
    thread.deliver({ kind: 'runtime_request', id: r.id }, { type: 'CALLBACK_LOST', reason: event.error.message });
  }
  if (event.sessionId)
    thread.deliver({ kind: 'provider_session', id: event.sessionId }, { type: 'FAILED', reason: event.error.message });
  const supervisor = thread.context({ kind: 'thread_supervisor', id: event.threadId });
  if (supervisor?.activeRunId)
    thread.deliver(
      { kind: 'run', id: supervisor.activeRunId },
      { type: 'PROVIDER_LOST', status: event.runStatus, error: event.error },
    );
}

function providerThreadTurn(thread: StepContext, runId: RunId, type: 'TURN_BEGAN' | 'TURN_ENDED'): void {
  const run = thread.context({ kind: 'run', id: runId });
  if (run?.providerThreadId)
    thread.deliver({ kind: 'provider_thread', id: run.providerThreadId }, { type, runOrdinal: run.ordinal });
}

/** A native turn id is evidence: bound, scoped to its provider thread, to the attempt it ran. */
function bindNativeTurn(thread: StepContext, event: Of<'turn.started'>): void {
  if (!event.nativeTurnRef) return;
  const run = thread.context({ kind: 'run', id: event.runId });
  if (!run) return;
  thread.current.bindings.push({
    provider: run.provider,
    scope: `provider_thread:${run.providerThreadId ?? 'none'}`,
    nativeRef: event.nativeTurnRef,
    appId: event.attemptId,
    entityKind: 'run_attempt',
    correlation: 'native_exact',
  });
}

/**
 * A provider thread's native ref is evidence too: bound to it as it is loaded, scoped to
 * its app thread, so adapters resume it from the binding rather than a machine's context.
 */
function bindNativeThread(thread: StepContext, event: Of<'thread.loaded'>): void {
  const providerThread = thread.context({ kind: 'provider_thread', id: event.providerThreadId });
  if (!providerThread) return;
  thread.current.bindings.push({
    provider: providerThread.provider,
    scope: `app_thread:${event.threadId}`,
    nativeRef: event.nativeThreadRef,
    appId: event.providerThreadId,
    entityKind: 'provider_thread',
    correlation: 'native_exact',
  });
}
