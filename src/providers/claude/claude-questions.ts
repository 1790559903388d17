import { z } from 'zod';
import type { Question } from '../../domain/entities.js';
import { BatonError } from '../../domain/errors.js';

/**
 * `AskUserQuestion` <-> Baton's questions. Claude's questions have no id: the agent keys the
 * answers by the question's text, so that text is the question's id in Baton too. The answer
 * goes back as the tool's `updatedInput` with `answers` (question text -> the chosen label;
 * a multi-select's labels comma-separated), which the agent turns into its tool result.
 */
const AskInput = z.looseObject({
  questions: z
    .array(
      z.looseObject({
        question: z.string().min(1),
        header: z.string(),
        options: z.array(z.looseObject({ label: z.string(), description: z.string() })),
        multiSelect: z.boolean().optional(),
      }),
    )
    .min(1),
});

/** The questions of an `AskUserQuestion` input, as Baton keeps them (null when it does not read as one). */
export function batonQuestions(input: unknown): Question[] | null {
  const ask = AskInput.safeParse(input);
  if (!ask.success) return null;
  return ask.data.questions.map((q) => ({
    id: q.question,
    header: q.header,
    question: q.question,
    options: q.options.map((o) => ({ label: o.label, description: o.description })),
    // Claude's tool always offers "Other", an answer of one's own; it has no secret questions.
    isOther: true,
    isSecret: false,
  }));
}

/** Baton's answers (by question id) as the `answers` Claude's tool takes; an answer to no asked question is refused. */
export function claudeAnswers(
  questions: readonly Question[],
  answers: Record<string, string | string[]>,
): Record<string, string> {
  const asked = new Set(questions.map((q) => q.id));
  const unknown = Object.keys(answers).filter((id) => !asked.has(id));
  if (unknown.length)
    throw new BatonError(
      'invalid_payload',
      `no question was asked with the id ${unknown.map((u) => `'${u}'`).join(', ')}`,
    );
  return Object.fromEntries(Object.entries(answers).map(([id, a]) => [id, Array.isArray(a) ? a.join(', ') : a]));
}
