import type { RunView } from '../../../src/domain/projections.js';
import { RunId, ThreadId } from '../../../src/domain/ids.js';
import { send } from '../commands.js';
import { isFinishedRun, words } from '../format.js';
import { useConsole } from '../live/use-stream.js';
import { go, threadPath } from '../router.js';
import { DiffView } from './diff-view.js';

/** The head of a run in the conversation: its number, how it stands (rolled back, interrupted...), its diff, a fork from it. */
export function RunHeader({ run, threadId }: { run: RunView; threadId: string }) {
  const { client } = useConsole();
  const fork = async () => {
    const result = await send(client, 'thread.fork', {
      sourceThreadId: ThreadId.parse(threadId),
      source: { type: 'run', threadId: ThreadId.parse(threadId), runId: RunId.parse(run.id) },
    });
    if (result && typeof result.threadId === 'string') go(threadPath(result.threadId));
  };
  const attempt = run.attempts.find((a) => a.id === run.activeAttemptId) ?? run.attempts.at(-1);
  return (
    <div class={`run-header run-${run.status}`} data-run-id={run.id} data-run-status={run.status}>
      <div class="row spread wrap">
        <span class="row wrap">
          <strong>{run.ordinal === null ? 'Queued run' : `Run ${run.ordinal}`}</strong>
          <span class={`chip run-status status-${run.status}`}>{words(run.status)}</span>
          <span class="muted">
            {run.provider}
            {run.model ? ` · ${run.model}` : ''}
          </span>
          {attempt && attempt.reason !== 'initial' && <span class="muted">attempt: {words(attempt.reason)}</span>}
          {run.interruptRequested && !isFinishedRun(run) && run.status !== 'rolled_back' && (
            <span class="muted">interrupt requested</span>
          )}
        </span>
        {isFinishedRun(run) && (
          <button type="button" class="small" onClick={() => void fork()} title="A new thread from this run">
            Fork from here
          </button>
        )}
      </div>
      {run.error && (
        <p class="error">
          {run.error.message} ({run.error.code})
        </p>
      )}
      {run.diff && (
        <details class="run-diff">
          <summary>Changes in this run</summary>
          <DiffView diff={run.diff} label={`changes of run ${run.ordinal ?? ''}`} />
        </details>
      )}
    </div>
  );
}
