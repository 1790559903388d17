import { useState } from 'preact/hooks';
import type { ThreadShell } from '../../../src/domain/projections.js';
import { send } from '../commands.js';
import { plural, threadState, threadTitle } from '../format.js';
import { requestsSpec, threadsSpec } from '../live/stream-specs.js';
import { useConsole, useStream } from '../live/use-stream.js';
import { NewThreadForm } from '../parts/new-thread-form.js';
import { threadPath } from '../router.js';

/** Every thread with what it is doing (delegated tasks under the thread that made them); create and archive. */
export function ThreadsView() {
  const threads = useStream(threadsSpec);
  const requests = useStream(requestsSpec);
  const [showArchived, setShowArchived] = useState(false);
  const all = threads.tables.list('threads').filter((t) => t.status !== 'deleted');
  const shown = all.filter((t) => showArchived || t.status === 'active');
  const pending = new Map<string, number>();
  for (const r of requests.tables.list('requests'))
    if (r.status === 'pending') pending.set(r.threadId, (pending.get(r.threadId) ?? 0) + 1);
  const ids = new Set(shown.map((t) => t.id));
  const childrenOf = new Map<string, ThreadShell[]>();
  for (const t of shown) {
    const parent = t.lineage.parentThreadId;
    if (parent && ids.has(parent)) childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), t]);
  }
  const roots = shown.filter((t) => !t.lineage.parentThreadId || !ids.has(t.lineage.parentThreadId)).reverse();

  return (
    <div class="page threads-page">
      <section class="card threads-list" aria-labelledby="threads-heading">
        <div class="row spread">
          <h2 id="threads-heading">Threads</h2>
          <label class="inline">
            <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.currentTarget.checked)} />
            Show archived
          </label>
        </div>
        {threads.status === 'loading' && <p class="muted">Loading threads…</p>}
        {threads.status === 'error' && <p class="error">{threads.error}</p>}
        {threads.status === 'live' && roots.length === 0 && <p class="muted">No threads yet: create one.</p>}
        <ul class="tree">
          {roots.map((t) => (
            <ThreadRow thread={t} childrenOf={childrenOf} pending={pending} depth={0} />
          ))}
        </ul>
      </section>
      <NewThreadForm />
    </div>
  );
}

function ThreadRow({
  thread: t,
  childrenOf,
  pending,
  depth,
}: {
  thread: ThreadShell;
  childrenOf: Map<string, ThreadShell[]>;
  pending: Map<string, number>;
  depth: number;
}) {
  const { client } = useConsole();
  const requests = pending.get(t.id) ?? 0;
  const children = depth < 20 ? (childrenOf.get(t.id) ?? []) : [];
  const idle = t.activeRunId === null && t.queuedRunCount === 0;
  return (
    <li class="thread-row" data-thread-id={t.id}>
      <div class="row spread wrap">
        <a href={`#${threadPath(t.id)}`} class="thread-link">
          {threadTitle(t)}
        </a>
        <span class="row wrap meta">
          <span class={`chip state-${threadState(t).replace(/ /g, '-')}`}>{threadState(t)}</span>
          <span class="chip">{t.acpAgent ? `acp: ${t.acpAgent}` : t.provider}</span>
          <span class="muted">{plural(t.runCount, 'run')}</span>
          {t.queuedRunCount > 0 && <span class="muted">{t.queuedRunCount} queued</span>}
          {requests > 0 && <span class="chip attention">{plural(requests, 'pending request')}</span>}
          {t.lineage.relationshipToParent && <span class="muted">{t.lineage.relationshipToParent}</span>}
          {t.status === 'active' && (
            <button
              type="button"
              class="small"
              disabled={!idle}
              title={idle ? 'Archive this thread' : 'Only an idle thread can be archived'}
              onClick={() => void send(client, 'thread.archive', { threadId: t.id })}
            >
              Archive
            </button>
          )}
        </span>
      </div>
      <div class="muted small-text cwd">{t.workspace.cwd}</div>
      {children.length > 0 && (
        <ul class="tree">
          {children.map((c) => (
            <ThreadRow thread={c} childrenOf={childrenOf} pending={pending} depth={depth + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}
