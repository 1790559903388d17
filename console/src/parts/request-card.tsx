import { useState } from 'preact/hooks';
import type { PlanArtifact, Question } from '../../../src/domain/entities.js';
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
  // A link an MCP server asks the user to open (to sign in, say): only a web address is made a link.
  const link = typeof details.url === 'string' && /^https?:\/\//i.test(details.url) ? details.url : null;
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
      {link && (
        <p>
          <a href={link} target="_blank" rel="noopener noreferrer">
            {link}
          </a>
        </p>
      )}
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

type Answer = string | string[];

/** Whether a question has its answer (one the agent marked optional needs none). */
const answered = (q: Question, a: Answer | undefined) =>
  q.required === false || (Array.isArray(a) ? a.length > 0 : Boolean(a));

/** The answers worth sending: empty ones (an optional question left open) are not. */
const given = (answers: Record<string, Answer>) =>
  Object.fromEntries(Object.entries(answers).filter(([, a]) => (Array.isArray(a) ? a.length > 0 : a !== '')));

/** An answer box of one's own: a number box where the agent asks for a number, masked where for a secret. */
const ownAnswer = (q: Question) =>
  q.answerType
    ? { type: 'number' as const, step: q.answerType === 'integer' ? '1' : 'any' }
    : q.isSecret
      ? { type: 'password' as const }
      : {};

/**
 * Structured questions the agent asks (options to pick, one or several, or free text),
 * answered in place, or declined (the agent is told no answer comes).
 */
export function QuestionsCard({ item, artifact }: { item: TurnItemView; artifact: PlanArtifact | undefined }) {
  const { client } = useConsole();
  const questions = artifact?.questions ?? [];
  const [answers, setAnswers] = useState<Record<string, Answer>>({});
  const [busy, setBusy] = useState(false);
  const pending = item.status === 'pending';
  const requestId = RuntimeRequestId.parse(item.id);
  const respond = async (reply: { answers: Record<string, Answer> } | { decision: 'decline' }) => {
    setBusy(true);
    await send(client, 'runtime-request.respond', { requestId, ...reply });
    setBusy(false);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void respond({ answers: given(answers) });
  };
  const set = (id: string, a: Answer) => setAnswers({ ...answers, [id]: a });
  const toggle = (id: string, label: string, on: boolean) => {
    const now = answers[id];
    const list = Array.isArray(now) ? now : [];
    set(id, on ? [...list, label] : list.filter((l) => l !== label));
  };
  const sent = (item.data as { answers?: Record<string, unknown> | null }).answers ?? null;
  return (
    <form class={`item request questions status-${item.status}`} onSubmit={submit} data-request-id={item.id}>
      <div class="row spread wrap">
        <span class="item-label">Questions</span>
        <span class={`chip status-${item.status}`}>{outcome(item)}</span>
      </div>
      {questions.length === 0 && <p>{item.text}</p>}
      {questions.map((q) => (
        <fieldset disabled={!pending || busy}>
          <legend>
            {q.header || q.question}
            {q.required === false && <span class="muted"> (optional)</span>}
          </legend>
          {q.header && <p>{q.question}</p>}
          {q.options?.length ? (
            <>
              {q.options.map((o) => {
                const now = answers[q.id];
                return (
                  <label class="option">
                    {q.multiple ? (
                      <input
                        type="checkbox"
                        value={o.label}
                        checked={Array.isArray(now) && now.includes(o.label)}
                        onChange={(e) => toggle(q.id, o.label, e.currentTarget.checked)}
                      />
                    ) : (
                      <input
                        type="radio"
                        name={`${item.id}-${q.id}`}
                        value={o.label}
                        checked={now === o.label}
                        onChange={() => set(q.id, o.label)}
                      />
                    )}
                    <span>
                      {o.label}
                      {o.description && <span class="muted"> — {o.description}</span>}
                    </span>
                  </label>
                );
              })}
              {/* An answer of one's own, unless the agent said it takes none (Codex and Claude always take one). */}
              {q.isOther !== false && !q.multiple && (
                <input
                  class="other-answer"
                  {...ownAnswer(q)}
                  aria-label={`Another answer: ${q.question}`}
                  placeholder="Or type another answer"
                  value={q.options.some((o) => o.label === answers[q.id]) ? '' : String(answers[q.id] ?? '')}
                  onInput={(e) => set(q.id, e.currentTarget.value)}
                />
              )}
            </>
          ) : (
            <input
              {...ownAnswer(q)}
              aria-label={q.question}
              value={String(answers[q.id] ?? '')}
              onInput={(e) => set(q.id, e.currentTarget.value)}
            />
          )}
          {sent && sent[q.id] !== undefined && (
            <p class="muted">Answered: {q.isSecret ? '(hidden)' : [sent[q.id]].flat().map(String).join(', ')}</p>
          )}
        </fieldset>
      ))}
      {pending && (
        <div class="row">
          <button type="submit" class="primary" disabled={busy || questions.some((q) => !answered(q, answers[q.id]))}>
            Answer
          </button>
          <button type="button" disabled={busy} onClick={() => void respond({ decision: 'decline' })}>
            Decline
          </button>
        </div>
      )}
    </form>
  );
}
