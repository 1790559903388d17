import type { RunOrigin } from '../domain/events.js';
import type { MessageId, NodeId, RunAttemptId, RunId } from '../domain/ids.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { DeliverOptions, StepContext } from './step-context.js';

/** A run Baton queues itself: its message, why (`origin`), and its ids when they are given. */
export interface OwnRun {
  text: string;
  origin: RunOrigin;
  ids?: { runId: RunId; messageId: MessageId; rootNodeId: NodeId; attemptId: RunAttemptId };
}

/**
 * Queues a run Baton makes itself (a delegated task's wake-up, an agent's own turn, a plan's
 * implementation): after whatever the thread is running, never steering it, on the thread's
 * provider and model. Its ids are allocated here unless the run brings its own. Returns the
 * run's id; whether the supervisor took it is the caller's to ask (or `options.mustAccept`).
 */
export function queueOwnRun(
  thread: StepContext,
  sup: { provider: ProviderKind; model: string | null },
  run: OwnRun,
  options?: DeliverOptions,
): RunId {
  const ids = run.ids ?? {
    runId: thread.current.newId('run'),
    messageId: thread.current.newId('message'),
    rootNodeId: thread.current.newId('node'),
    attemptId: thread.current.newId('attempt'),
  };
  thread.deliver(
    { kind: 'thread_supervisor', id: thread.threadId },
    {
      type: 'SEND',
      ...ids,
      text: run.text,
      mode: 'queue_after_active',
      provider: sup.provider,
      model: sup.model,
      targetRunId: null,
      origin: run.origin,
    },
    options,
  );
  return ids.runId;
}
