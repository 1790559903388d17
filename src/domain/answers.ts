import type { Question } from './entities.js';
import { BatonError } from './errors.js';

export type Answers = Record<string, string | string[]>;

/**
 * Refuses answers that do not fit the questions asked, before anything is stored: an
 * answer to no question, a required question left open, several choices where one is
 * taken, a choice that is not an option where no answer of one's own is taken, or an
 * answer of one's own that is not the number asked for. What a question does not say
 * (its agent did not) is not checked.
 */
export function refuseUnfitAnswers(questions: readonly Question[], answers: Answers): void {
  const byId = new Map(questions.map((q) => [q.id, q]));
  const unknown = Object.keys(answers).filter((id) => !byId.has(id));
  if (unknown.length) refuse(`no question was asked with the id ${unknown.map((u) => `'${u}'`).join(', ')}`);
  for (const q of questions) {
    const given = answers[q.id];
    const values = given === undefined ? [] : Array.isArray(given) ? given : [given];
    if (values.length === 0) {
      if (q.required === true) refuse(`question '${q.id}' (${q.header}) must be answered`, q);
      continue;
    }
    if (q.multiple === false && values.length > 1) refuse(`question '${q.id}' takes one answer`, q);
    const labels = new Set((q.options ?? []).map((o) => o.label));
    for (const value of values) {
      if (labels.has(value)) continue;
      if (q.isOther === false)
        refuse(`'${value}' is not one of the options of question '${q.id}': ${[...labels].join(', ')}`, q);
      if (q.answerType && !fitsType(value, q.answerType))
        refuse(`question '${q.id}' asks for ${q.answerType === 'integer' ? 'a whole number' : 'a number'}`, q);
    }
  }
}

function fitsType(value: string, type: 'number' | 'integer'): boolean {
  const n = value.trim() === '' ? NaN : Number(value);
  return type === 'integer' ? Number.isSafeInteger(n) : Number.isFinite(n);
}

function refuse(message: string, question?: Question): never {
  throw new BatonError('invalid_payload', message, question ? { questionId: question.id } : {});
}
