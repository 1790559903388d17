import { useState } from 'preact/hooks';
import type { Checkpoint } from '../../../src/domain/entities.js';
import type { TurnItemView } from '../../../src/domain/projections.js';
import { plural, words } from '../format.js';
import { CheckpointDiffDialog } from './checkpoint-diff-dialog.js';
import { NodeRollbackButton } from './node-rollback-button.js';
import { RollbackButton } from './rollback-button.js';

/**
 * A subagent by what its provider calls it: Codex's agent path (`/root/writer`), Claude's
 * subagent type; else the start of its item's text (which becomes its result once it ends).
 */
function subagentName(item: TurnItemView): string {
  const d = item.data as { agentPath?: unknown; subagentType?: unknown };
  if (typeof d.agentPath === 'string' && d.agentPath) return d.agentPath.split('/').pop() || d.agentPath;
  if (typeof d.subagentType === 'string' && d.subagentType) return d.subagentType;
  return item.text.length > 40 ? `${item.text.slice(0, 40)}…` : item.text;
}

/** How a checkpoint is named in its row and in its diff's title. */
function nameOf(c: Checkpoint, subagents: Map<string, string>): string {
  if (c.scopeKind === 'subagent') {
    const name = (c.nodeId && subagents.get(c.nodeId)) || c.nodeId || 'subagent';
    return `Subagent ${name}${c.runOrdinal !== null ? ` in run ${c.runOrdinal}` : ''}`;
  }
  const at = c.runOrdinal === 0 ? 'Start' : `After run ${c.runOrdinal}`;
  return c.scopeKind === 'manual' ? `${at} (merge)` : at;
}

/** The checkpoint as its diff's title goes on ("Changes after run 2"). */
function titleOf(c: Checkpoint, name: string): string {
  if (c.scopeKind === 'subagent') return `of ${name.replace(/^S/, 's')}`;
  return c.runOrdinal === 0 ? 'at the start' : name.replace(/^A/, 'a');
}

/**
 * The thread's checkpoints, newest first: one before the first run, one after each run, and
 * those of subagents under their run's. Each ready one opens its diff file by file; a run's
 * rolls the thread back to it, a subagent's restores its files (`rollback.node`).
 */
export function CheckpointsPanel({
  threadId,
  checkpoints,
  items,
  busy,
}: {
  threadId: string;
  checkpoints: Checkpoint[];
  /** The thread's items: a subagent's checkpoint is named after its subagent. */
  items: TurnItemView[];
  busy: boolean;
}) {
  const [showing, setShowing] = useState<{ id: string; title: string } | null>(null);
  const shown = checkpoints.filter(
    (c) => (c.nodeId === null && c.runOrdinal !== null) || (c.scopeKind === 'subagent' && c.nodeId !== null),
  );
  if (shown.length === 0) return null;
  const subagents = new Map(items.filter((i) => i.kind === 'subagent').map((i) => [i.id, subagentName(i)]));
  return (
    <section class="card checkpoints" aria-labelledby="checkpoints-heading">
      <h3 id="checkpoints-heading">Checkpoints</h3>
      <ul>
        {[...shown].reverse().map((c) => {
          const name = nameOf(c, subagents);
          const child = c.scopeKind === 'subagent';
          return (
            <li key={c.id} class={`checkpoint-row status-${c.status}${child ? ' subagent-checkpoint' : ''}`}>
              <div class="row spread wrap">
                <span>
                  {name}
                  {c.diff && (
                    <span class="muted">
                      {' '}
                      · {plural(c.diff.files, 'file')} +{c.diff.additions} −{c.diff.deletions}
                    </span>
                  )}
                </span>
                {c.status === 'ready' ? (
                  <span class="row wrap">
                    {c.diff?.files !== 0 && (
                      <button
                        type="button"
                        class="small"
                        aria-haspopup="dialog"
                        onClick={() => setShowing({ id: c.id, title: titleOf(c, name) })}
                      >
                        Show diff
                      </button>
                    )}
                    {!child && <RollbackButton threadId={threadId} runOrdinal={c.runOrdinal!} disabled={busy} />}
                  </span>
                ) : (
                  <span class="chip">{words(c.status)}</span>
                )}
              </div>
              {child && c.status === 'ready' && <NodeRollbackButton nodeId={c.nodeId!} checkpointId={c.id} />}
              {c.skippedFiles.length > 0 && (
                <p class="muted small-text">Not captured (too large): {c.skippedFiles.map((f) => f.path).join(', ')}</p>
              )}
            </li>
          );
        })}
      </ul>
      {showing && (
        <CheckpointDiffDialog
          key={showing.id}
          checkpointId={showing.id}
          title={showing.title}
          onClose={() => setShowing(null)}
        />
      )}
    </section>
  );
}
