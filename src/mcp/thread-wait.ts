import { z } from 'zod';
import { backgroundWork } from '../actors/background-work.js';
import { delegatedBy, settleTaskWake, taskRun } from '../actors/delegated-tasks.js';
import type { Runtime } from '../actors/runtime.js';
import { BatonError } from '../domain/errors.js';
import { RunId, ThreadId } from '../domain/ids.js';
import type { ProjectionRow } from '../domain/projections.js';
import { defineTool, type McpTool } from './tool-registry.js';
import {
  isTerminal,
  lastAssistantMessage,
  pendingRequests,
  requireRunOf,
  requireVisibleThread,
  runSummary,
} from './thread-views.js';

/** Below the SDK client's own 60 s request timeout, so a plain client never gives up first. */
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 600_000;

/**
 * Resolves with `check()`'s first non-null answer, read now and again after each commit that
 * touches the thread (the runtime's publications, as the Socket.IO fan-out gets them: no
 * polling), or with null at the timeout or when `signal` aborts. The first read and the
 * subscription happen in one synchronous stretch, so no commit can fall between them.
 */
export function untilSettled<T>(
  runtime: Runtime,
  threadId: string,
  check: () => T | null,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<T | null> {
  const now = check();
  if (now !== null || signal.aborted) return Promise.resolve(now);
  return new Promise((resolve) => {
    const finish = (value: T | null) => {
      stop();
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      resolve(value);
    };
    const aborted = () => finish(null);
    const stop = runtime.onEvents((events) => {
      if (!events.some((e) => e.threadId === threadId)) return;
      const value = check();
      if (value !== null) finish(value);
    });
    const timer = setTimeout(() => finish(null), timeoutMs);
    signal.addEventListener('abort', aborted, { once: true });
  });
}

type Run = ProjectionRow<'runs'>;

/** Waits for a run to end, or for the whole thread to go idle. */
export function threadWaitTool(runtime: Runtime): McpTool {
  const store = runtime.store;
  /** The run reported: the one named, else the thread's active run, else the latest that started (not one still queued). */
  const target = (threadId: string, runId: string | undefined): Run | null => {
    if (runId) return store.projections.get('runs', runId);
    const thread = store.projections.get('threads', threadId);
    const active = thread?.activeRunId ? store.projections.get('runs', thread.activeRunId) : null;
    const runs = store.projections.list('runs', threadId);
    return active ?? runs.filter((r) => r.ordinal !== null).at(-1) ?? runs.at(-1) ?? null;
  };
  /**
   * Done: the run named has ended; with none named, the thread runs nothing and starts nothing (a
   * held queue waits for a send), and its agent does nothing in the background (a Claude helper,
   * its asks, a turn of its own).
   */
  const done = (threadId: string, runId: string | undefined): boolean => {
    if (runId) return isTerminal(store.projections.get('runs', runId)?.status ?? 'queued');
    const t = store.projections.get('threads', threadId);
    if (!t || t.activeRunId || (t.queuedRunCount > 0 && !t.queueHeld)) return false;
    return t.queueHeld || backgroundWork(store, threadId) === null;
  };
  return defineTool({
    name: 'thread_wait',
    title: 'Wait for a run',
    description: `Waits until a run ends (\`runId\`), or, with none named, until the thread has no run active or queued, for at most \`timeoutMs\` (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS}; keep it below your client's request timeout, or ask for progress: each status the run goes through is a progress notification). Returns \`{ done, timedOut, run: { runId, status, error... }, lastAssistantMessage, pendingRequests }\`: a run waiting on an approval or a question times out with the request listed; a wait Baton's stop cuts short is a typed \`invalid_transition\`. A task you delegated whose end this hands you owes you no wake-up.`,
    readOnly: true,
    input: z
      .object({
        threadId: ThreadId,
        runId: RunId.optional(),
        timeoutMs: z.number().int().min(0).max(MAX_TIMEOUT_MS).optional(),
      })
      .strict(),
    async run({ threadId, runId, timeoutMs = DEFAULT_TIMEOUT_MS }, call) {
      requireVisibleThread(store, call.scope, threadId);
      if (runId) requireRunOf(store, threadId, runId);
      // Each status the run goes through is a progress notification (the first says the wait began),
      // which keeps a client that resets its timeout on progress waiting as long as the run goes on.
      let reported = '';
      let step = 0;
      const check = () => {
        const run = target(threadId, runId);
        const now = run ? `run ${run.id} is ${run.status}` : `thread ${threadId} has no run`;
        if (call.progress && now !== reported) call.progress(step++, (reported = now));
        return done(threadId, runId) ? true : null;
      };
      const ended = await untilSettled(runtime, threadId, check, timeoutMs, call.signal);
      if (ended === null && call.stopping.aborted)
        throw new BatonError(
          'invalid_transition',
          'Baton is stopping: the wait ended before the run did (the run goes on when Baton is back; wait again then)',
        );
      const run = target(threadId, runId);
      // A task's end handed to the agent of the thread that delegated it: no wake-up is owed for it.
      const thread = store.projections.get('threads', threadId);
      if (
        run &&
        isTerminal(run.status) &&
        call.scope.kind === 'session' &&
        delegatedBy(thread) === call.scope.threadId &&
        taskRun(store, threadId)?.id === run.id
      )
        await settleTaskWake(runtime, thread!, { read: 'thread_wait' });
      const background = backgroundWork(store, threadId);
      return {
        threadId,
        ...(background ? { backgroundWork: background } : {}),
        done: ended === true,
        timedOut: ended === null,
        run: run ? runSummary(run) : null,
        lastAssistantMessage: run ? lastAssistantMessage(store, run) : null,
        pendingRequests: pendingRequests(store, threadId),
      };
    },
  });
}
