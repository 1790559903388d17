import type { ComponentChildren } from 'preact';
import type { PlanArtifact } from '../../../src/domain/entities.js';
import type { TurnItemView } from '../../../src/domain/projections.js';
import { plural, words } from '../format.js';
import { threadPath } from '../router.js';
import { ApprovalCard, QuestionsCard } from './request-card.js';
import { PlanCard } from './plan-card.js';
import { ToolCall } from './tool-call.js';

interface Props {
  item: TurnItemView;
  /** The thread shown (a fork shows items of its source's too). */
  threadId: string;
  /** The thread's questions artifacts by node (a questions request shows its questions). */
  questions: Map<string, PlanArtifact>;
  /** A rollback control for a checkpoint item, when the thread can roll back to it. */
  rollback?: (runOrdinal: number) => ComponentChildren;
  /** A checkpoint item's scope: a subagent's is rolled back to from the checkpoints panel, not by run. */
  checkpointScope?: string | undefined;
}

type Step = { text: string; status: string };
const mark: Record<string, string> = { completed: '✓', in_progress: '▸', pending: '○' };

/** One item of the conversation, by kind. */
export function TurnItem({ item, threadId, questions, rollback, checkpointScope }: Props) {
  const d = item.data as Record<string, unknown>;
  switch (item.kind) {
    case 'user_message':
      return (
        <div class="item message user">
          <span class="item-label">You</span>
          <div class="text">{item.text}</div>
        </div>
      );
    case 'assistant_message':
      return (
        <div class={`item message assistant status-${item.status}`} aria-busy={item.status === 'streaming'}>
          <span class="item-label">Agent{item.status === 'streaming' ? ' · writing…' : ''}</span>
          <div class="text">{item.text}</div>
        </div>
      );
    case 'reasoning':
      return (
        <details class="item reasoning">
          <summary>Reasoning{item.status === 'running' ? ' …' : ''}</summary>
          <div class="text">{item.text || '(no summary)'}</div>
        </details>
      );
    case 'tool_call':
      return <ToolCall item={item} />;
    case 'approval_request':
      return <ApprovalCard item={item} />;
    case 'user_input_request':
      return <QuestionsCard item={item} artifact={item.nodeId ? questions.get(item.nodeId) : undefined} />;
    case 'todo_list': {
      const steps = (Array.isArray(d.steps) ? d.steps : []) as Step[];
      return (
        <div class="item plan todo">
          <span class="item-label">To do</span>
          <ul class="steps">
            {steps.map((s) => (
              <li class={`step step-${s.status}`}>
                <span aria-hidden="true">{mark[s.status] ?? '○'}</span> {s.text}
                <span class="sr-only"> ({words(s.status)})</span>
              </li>
            ))}
          </ul>
        </div>
      );
    }
    case 'plan':
      return <PlanCard item={item} threadId={threadId} />;
    case 'subagent': {
      const task = typeof d.taskId === 'string' ? d.taskId : null;
      return (
        <div class={`item subagent status-${item.status}`}>
          <div class="row spread wrap">
            <span class="item-label">Subagent{item.text ? `: ${item.text}` : ''}</span>
            <span class={`chip status-${item.status}`}>{words(item.status)}</span>
          </div>
          {task && (
            <a href={`#${threadPath(task)}`} class="small-text">
              Open delegated task {task}
            </a>
          )}
        </div>
      );
    }
    case 'checkpoint': {
      const diff = d.diff as { files: number; additions: number; deletions: number } | null | undefined;
      const ordinal = typeof d.runOrdinal === 'number' ? d.runOrdinal : null;
      const subagent = checkpointScope === 'subagent';
      return (
        <div class={`item checkpoint status-${item.status}`}>
          <span>
            Checkpoint{' '}
            {subagent
              ? 'after a subagent'
              : ordinal === 0
                ? 'before the first run'
                : ordinal !== null
                  ? `after run ${ordinal}`
                  : ''}
            {diff && (
              <span class="muted">
                {' '}
                · {plural(diff.files, 'file')} +{diff.additions} −{diff.deletions}
              </span>
            )}
            {item.status !== 'ready' && <span class="chip"> {item.status}</span>}
          </span>
          {item.status === 'ready' && ordinal !== null && !subagent && rollback?.(ordinal)}
        </div>
      );
    }
    case 'system':
      return d.contextSeed ? <Handoff item={item} /> : <div class="item system muted">{item.text}</div>;
  }
}

/** What Baton told a provider thread that lacked the history (a switch, a portable fork, a merge-back). */
function Handoff({ item }: { item: TurnItemView }) {
  const d = item.data as { strategy?: string; coveredRunOrdinals?: number[]; chars?: number; fromThreadId?: string };
  const runs = d.coveredRunOrdinals ?? [];
  return (
    <details class="item handoff">
      <summary>
        Handoff ({d.strategy ?? 'context'}): Baton told the agent{' '}
        {runs.length ? `runs ${runs.join(', ')}` : 'the history'}
        {d.fromThreadId && d.fromThreadId !== item.threadId ? ` of ${d.fromThreadId}` : ''}
        {typeof d.chars === 'number' ? ` · ${d.chars} chars` : ''}
      </summary>
      <div class="text">{item.text}</div>
    </details>
  );
}
