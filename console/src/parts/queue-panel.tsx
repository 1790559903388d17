import { RunId, ThreadId } from '../../../src/domain/ids.js';
import type { MessageView, RunView } from '../../../src/domain/projections.js';
import { send } from '../commands.js';
import { useConsole } from '../live/use-stream.js';

/** The runs waiting for the active one: reorder, cancel, or promote one to steer the active run. */
export function QueuePanel({
  threadId,
  queued,
  messages,
  hasActive,
}: {
  threadId: string;
  queued: RunView[];
  messages: Map<string, MessageView>;
  hasActive: boolean;
}) {
  const { client } = useConsole();
  if (queued.length === 0) return null;
  const order = queued.map((r) => RunId.parse(r.id));
  const move = (i: number, by: number) => {
    const next = [...order];
    const [run] = next.splice(i, 1);
    next.splice(i + by, 0, run!);
    void send(client, 'queued-run.reorder', { threadId: ThreadId.parse(threadId), order: next });
  };
  return (
    <section class="card queue" aria-labelledby="queue-heading">
      <h3 id="queue-heading">Queue</h3>
      <ol>
        {queued.map((r, i) => (
          <li data-run-id={r.id}>
            <div class="queued-text">{messages.get(r.userMessageId)?.text ?? r.id}</div>
            <div class="row wrap">
              <button type="button" class="small" disabled={i === 0} onClick={() => move(i, -1)} aria-label="Move up">
                ↑
              </button>
              <button
                type="button"
                class="small"
                disabled={i === queued.length - 1}
                onClick={() => move(i, 1)}
                aria-label="Move down"
              >
                ↓
              </button>
              <button
                type="button"
                class="small"
                disabled={!hasActive}
                title="Steer the active run with this message instead"
                onClick={() => void send(client, 'queued-message.promote', { runId: RunId.parse(r.id) })}
              >
                Steer now
              </button>
              <button
                type="button"
                class="small danger"
                onClick={() => void send(client, 'queued-run.cancel', { runId: RunId.parse(r.id) })}
              >
                Cancel
              </button>
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
