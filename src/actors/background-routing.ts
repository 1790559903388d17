import type { ProviderEvent } from '../domain/provider-events.js';
import type { StepContext } from './step-context.js';
import { queueOwnRun } from './own-runs.js';

// Provider events about work that outlives the run that began it (a background subagent)
// and about turns the agent begins of its own after such work ends.

type Of<T extends ProviderEvent['type']> = Extract<ProviderEvent, { type: T }>;

/**
 * The work under a node moved to the background: every request still open under it (its
 * node's parents lead to the node) outlives its run from now on (`OUTLIVE_RUN`).
 */
export function outliveRun(thread: StepContext, event: Of<'node.outlives_run'>): void {
  const view = thread.current.view;
  const under = (nodeId: string | null): boolean => {
    for (let id = nodeId, hops = 0; id && hops < 64; id = view.get('graph_nodes', id)?.parentNodeId ?? null, hops++)
      if (id === event.nodeId) return true;
    return false;
  };
  for (const r of view.list('requests', event.threadId, (r) => r.status === 'pending' || r.status === 'answering'))
    if (under(r.nodeId)) thread.deliver({ kind: 'runtime_request', id: r.id }, { type: 'OUTLIVE_RUN' });
}

/**
 * A turn the agent began of its own: a run queued with its ids (after what the thread is
 * doing), whose origin says so; the adapter binds the turn to it when its turn start comes.
 * A thread that cannot take it (stopped, archived) records a warning instead, and the turn is
 * interrupted (`provider.turn.interrupt`, reason `agent_turn_refused`).
 */
export function agentTurn(thread: StepContext, event: Of<'agent.turn'>): void {
  const ref = { kind: 'thread_supervisor' as const, id: event.threadId };
  const sup = thread.context(ref);
  const refusal = !sup
    ? 'the thread is gone'
    : sup.status !== 'active'
      ? `the thread is ${sup.status}`
      : sup.queueHeld
        ? 'the thread is stopped (its queue is held)'
        : null;
  if (refusal || !sup) {
    thread.current.addEvent({
      type: 'runtime.warning',
      payload: {
        threadId: event.threadId,
        runId: null,
        message: `the agent began a turn of its own (${event.reason}) and Baton took no run for it: ${refusal}`,
      },
    });
    // The agent is told, so the turn does not wait on Baton: it is interrupted.
    if (sup)
      thread.current.addEffect(
        {
          kind: 'provider.turn.interrupt',
          provider: sup.provider,
          runId: null,
          nodeId: null,
          payload: { attemptId: event.attemptId, reason: 'agent_turn_refused' },
        },
        sup.provider,
      );
    return;
  }
  queueOwnRun(thread, sup, {
    text: event.text,
    origin: { kind: 'agent_turn', reason: event.reason, nodeId: event.sourceNodeId },
    ids: { runId: event.runId, messageId: event.messageId, rootNodeId: event.nodeId, attemptId: event.attemptId },
  });
}
