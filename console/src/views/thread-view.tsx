import type { PlanArtifact } from '../../../src/domain/entities.js';
import type { RunView, TurnItemView } from '../../../src/domain/projections.js';
import { isActiveRun, threadState, threadTitle } from '../format.js';
import { threadSpec, threadsSpec } from '../live/stream-specs.js';
import { useStream } from '../live/use-stream.js';
import { CheckpointsPanel } from '../parts/checkpoints-panel.js';
import { Composer } from '../parts/composer.js';
import { QueuePanel } from '../parts/queue-panel.js';
import { RollbackButton } from '../parts/rollback-button.js';
import { RunHeader } from '../parts/run-header.js';
import { ThreadHeader } from '../parts/thread-header.js';
import { TurnItem } from '../parts/turn-item.js';
import { WindowedList } from '../parts/windowed-list.js';
import { threadPath } from '../router.js';

type Row =
  | { kind: 'run'; key: string; run: RunView }
  | { kind: 'inherited'; key: string; from: string }
  | { kind: 'item'; key: string; item: TurnItemView; depth: number };

/**
 * The conversation as rows: a fork's inherited history first, then the thread's own items
 * run by run (a run's header before its items; rolled-back runs kept, marked), items of a
 * subagent indented under it. A run goes where its work began (its first item other than
 * its message: a message queued behind a running run does not split it); an item of no run
 * (the baseline checkpoint) stays where it happened.
 */
function rowsOf(inherited: TurnItemView[], items: TurnItemView[], runs: Map<string, RunView>): Row[] {
  const rows: Row[] = [];
  if (inherited.length) rows.push({ kind: 'inherited', key: 'inherited', from: inherited[0]!.threadId });
  for (const item of inherited) rows.push({ kind: 'item', key: `i:${item.id}`, item, depth: 0 });
  const subagents = new Map<string, TurnItemView>();
  for (const i of items) if (i.kind === 'subagent' && i.nodeId) subagents.set(i.nodeId, i);
  const depthOf = (item: TurnItemView): number => {
    let depth = 0;
    let parent = (item.data as { parentNodeId?: unknown }).parentNodeId;
    while (typeof parent === 'string' && subagents.has(parent) && depth < 8) {
      depth += 1;
      parent = (subagents.get(parent)!.data as { parentNodeId?: unknown }).parentNodeId;
    }
    return depth;
  };
  const groups = new Map<string, { at: number; run: RunView | null; items: TurnItemView[] }>();
  for (const item of items) {
    const key = item.runId ?? `item:${item.id}`;
    let group = groups.get(key);
    if (!group)
      groups.set(
        key,
        (group = { at: item.position, run: item.runId ? (runs.get(item.runId) ?? null) : null, items: [] }),
      );
    if (group.items.every((i) => i.kind === 'user_message') && item.kind !== 'user_message') group.at = item.position;
    group.items.push(item);
  }
  for (const group of [...groups.values()].sort((a, b) => a.at - b.at)) {
    if (group.run) rows.push({ kind: 'run', key: `r:${group.run.id}`, run: group.run });
    for (const item of group.items) rows.push({ kind: 'item', key: item.id, item, depth: depthOf(item) });
  }
  return rows;
}

/** One thread, live: its conversation, the active run's controls, the queue, checkpoints, delegated tasks. */
export function ThreadView({ threadId }: { threadId: string }) {
  const stream = useStream(threadSpec(threadId));
  const threads = useStream(threadsSpec);
  const { tables } = stream;
  const thread = tables.get('threads', threadId);
  if (stream.status === 'loading') return <p class="page muted">Loading thread…</p>;
  if (stream.status === 'error' || stream.status === 'missing' || !thread)
    return (
      <div class="page">
        <p class="error" role="alert">
          {stream.status === 'error' ? stream.error : `Baton has no thread ${threadId}.`}
        </p>
        <p>
          <a href="#/threads">Back to the threads</a>
        </p>
      </div>
    );

  const runs = tables.list('runs', threadId);
  const runById = new Map(runs.map((r) => [r.id, r]));
  const active = (thread.activeRunId && runById.get(thread.activeRunId)) || runs.find(isActiveRun) || null;
  const queued = runs
    .filter((r) => r.status === 'queued')
    .sort((a, b) => (a.queuePosition ?? 0) - (b.queuePosition ?? 0));
  const messages = new Map(tables.list('messages', threadId).map((m) => [m.id, m]));
  const questions = new Map<string, PlanArtifact>();
  for (const p of tables.list('plans', threadId)) if (p.kind === 'questions') questions.set(p.nodeId, p);
  const items = tables.list('turn_items', threadId);
  const rows = rowsOf(stream.extras.inherited, items, runById);
  const children = threads.tables
    .list('threads')
    .filter((t) => t.lineage.parentThreadId === threadId && t.status !== 'deleted');
  const busy = active !== null;

  return (
    <div class="page thread-page" data-thread-id={threadId}>
      <ThreadHeader thread={thread} transfers={tables.list('context_transfers', threadId)} />
      <div class="thread-body">
        <section class="conversation" aria-label="Conversation">
          {rows.length === 0 ? (
            <p class="muted empty">No messages yet. Send the first one below.</p>
          ) : (
            <WindowedList
              label="Conversation"
              items={rows}
              keyOf={(r) => r.key}
              render={(r) =>
                r.kind === 'run' ? (
                  <RunHeader run={r.run} threadId={threadId} />
                ) : r.kind === 'inherited' ? (
                  <div class="inherited-head muted">
                    History from <a href={`#${threadPath(r.from)}`}>{r.from}</a>, up to the fork point
                  </div>
                ) : (
                  <div
                    class={`item-wrap${r.item.rolledBack ? ' rolled-back' : ''}${r.item.inherited ? ' inherited' : ''}`}
                    style={r.depth ? { marginLeft: `${Math.min(r.depth, 4) * 1.5}rem` } : undefined}
                    data-item-kind={r.item.kind}
                  >
                    <TurnItem
                      item={r.item}
                      threadId={threadId}
                      questions={questions}
                      checkpointScope={
                        r.item.kind === 'checkpoint' ? tables.get('checkpoints', r.item.id)?.scopeKind : undefined
                      }
                      rollback={
                        r.item.inherited || r.item.rolledBack
                          ? undefined
                          : (ordinal) => <RollbackButton threadId={threadId} runOrdinal={ordinal} disabled={busy} />
                      }
                    />
                  </div>
                )
              }
            />
          )}
          <Composer thread={thread} active={active} />
        </section>
        <aside class="side" aria-label="Thread details">
          <QueuePanel threadId={threadId} queued={queued} messages={messages} hasActive={active !== null} />
          <CheckpointsPanel
            threadId={threadId}
            checkpoints={tables.list('checkpoints', threadId)}
            items={items}
            busy={busy}
          />
          {children.length > 0 && (
            <section class="card delegated" aria-labelledby="delegated-heading">
              <h3 id="delegated-heading">Delegated tasks</h3>
              <ul>
                {children.map((c) => (
                  <li class="row spread wrap">
                    <a href={`#${threadPath(c.id)}`}>{threadTitle(c)}</a>
                    <span class="chip">{threadState(c)}</span>
                  </li>
                ))}
              </ul>
            </section>
          )}
          {thread.warnings.length > 0 && (
            <section class="card warnings" aria-labelledby="warnings-heading">
              <h3 id="warnings-heading">Warnings</h3>
              <ul>
                {thread.warnings.slice(-5).map((w) => (
                  <li class="small-text">{w.message}</li>
                ))}
              </ul>
            </section>
          )}
        </aside>
      </div>
    </div>
  );
}
