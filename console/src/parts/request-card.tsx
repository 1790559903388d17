import { useState } from 'preact/hooks';
import type { PlanArtifact } from '../../../src/domain/entities.js';
import { RuntimeRequestId } from '../../../src/domain/ids.js';
import type { TurnItemView } from '../../../src/domain/projections.js';
import type { ApprovalDecision } from '../../../src/domain/statuses.js';
import { send } from '../commands.js';
import { words } from '../format.js';
import { useConsole } from '../live/use-stream.js';

const decisions: [ApprovalDecision, string][] = [
  ['accept', 'Approve'],
  ['acceptForSession', 'Approve for session'],
  ['decline', 'Decline'],
  ['cancel', 'Cancel turn'],
];

/** What a settled request was answered with, or why it ended. */
function outcome(item: TurnItemView): string {
  const d = item.data as { decision?: unknown; reason?: unknown };
  if (typeof d.decision === 'string') return `${words(item.status)}: ${words(d.decision)}`;
  if (typeof d.reason === 'string') return `${words(item.status)}: ${d.reason}`;
  return words(item.status);
}

/** An approval the agent waits for, answered in place. */
export function ApprovalCard({ item }: { item: TurnItemView }) {
  const { client } = useConsole();
  const [busy, setBusy] = useState(false);
  const d = item.data as { requestKind?: string; details?: Record<string, unknown> };
  const details = d.details ?? {};
  const reason = typeof details.reason === 'string' ? details.reason : null;
  const answer = async (decision: ApprovalDecision) => {
    setBusy(true);
    await send(client, 'runtime-request.respond', { requestId: RuntimeRequestId.parse(item.id), decision });
    setBusy(false);
  };
  return (
    <div class={`item request approval status-${item.status}`} data-request-id={item.id}>
      <div class="row spread wrap">
        <span class="item-label">Approval: {words(d.requestKind ?? 'request')}</span>
        <span class={`chip status-${item.status}`}>{outcome(item)}</span>
      </div>
      <code class="command">{item.text}</code>
      {reason && <p class="muted">{reason}</p>}
      {item.status === 'pending' && (
        <div class="row wrap actions" role="group" aria-label="Answer the approval">
          {decisions.map(([decision, label]) => (
            <button
              type="button"
              class={decision === 'accept' ? 'primary' : ''}
              disabled={busy}
              onClick={() => void answer(decision)}
            >
              {label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

/** An answer box's masking: a password box for a question the agent asked to keep out of sight. */
const masked = (q: { isSecret?: boolean }) => (q.isSecret ? { type: 'password' as const } : {});

/** Structured questions the agent asks (options to pick, or free text), answered in place. */
export function QuestionsCard({ item, artifact }: { item: TurnItemView; artifact: PlanArtifact | undefined }) {
  const { client } = useConsole();
  const questions = artifact?.questions ?? [];
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const pending = item.status === 'pending';
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    await send(client, 'runtime-request.respond', { requestId: RuntimeRequestId.parse(item.id), answers });
    setBusy(false);
  };
  const given = (item.data as { answers?: Record<string, unknown> | null }).answers ?? null;
  return (
    <form class={`item request questions status-${item.status}`} onSubmit={submit} data-request-id={item.id}>
      <div class="row spread wrap">
        <span class="item-label">Questions</span>
        <span class={`chip status-${item.status}`}>{outcome(item)}</span>
      </div>
      {questions.length === 0 && <p>{item.text}</p>}
      {questions.map((q) => (
        <fieldset disabled={!pending || busy}>
          <legend>{q.header || q.question}</legend>
          {q.header && <p>{q.question}</p>}
          {q.options?.length ? (
            <>
              {q.options.map((o) => (
                <label class="option">
                  <input
                    type="radio"
                    name={`${item.id}-${q.id}`}
                    value={o.label}
                    checked={answers[q.id] === o.label}
                    onChange={() => setAnswers({ ...answers, [q.id]: o.label })}
                  />
                  <span>
                    {o.label}
                    {o.description && <span class="muted"> — {o.description}</span>}
                  </span>
                </label>
              ))}
              {/* An answer of one's own, unless the agent said it takes none (Codex and Claude always take one). */}
              {q.isOther !== false && (
                <input
                  class="other-answer"
                  {...masked(q)}
                  aria-label={`Another answer: ${q.question}`}
                  placeholder="Or type another answer"
                  value={q.options.some((o) => o.label === answers[q.id]) ? '' : (answers[q.id] ?? '')}
                  onInput={(e) => setAnswers({ ...answers, [q.id]: e.currentTarget.value })}
                />
              )}
            </>
          ) : (
            <input
              {...masked(q)}
              aria-label={q.question}
              value={answers[q.id] ?? ''}
              onInput={(e) => setAnswers({ ...answers, [q.id]: e.currentTarget.value })}
            />
          )}
          {given && given[q.id] !== undefined && (
            <p class="muted">Answered: {q.isSecret ? '(hidden)' : String(given[q.id])}</p>
          )}
        </fieldset>
      ))}
      {pending && (
        <button type="submit" class="primary" disabled={busy || questions.some((q) => !answers[q.id])}>
          Answer
        </button>
      )}
    </form>
  );
}
