import { z } from 'zod';
import type { Answers } from '../domain/answers.js';
import type { Question } from '../domain/entities.js';
import type { ApprovalDecision } from '../domain/statuses.js';

/**
 * An MCP server's form (`elicitation/create`, form mode: a flat object of strings, numbers,
 * booleans, single and multiple choices) <-> Baton's questions, whichever agent passes it on.
 * Each field becomes a question (a choice's options are its titles; a yes/no field's are Yes
 * and No; a number's answer must be one); answers go back as the form's content, typed as it
 * asks; a declined question is the form declined (or cancelled). A URL request (URL mode:
 * open a link, to sign in, say) is an approval to open it: accepted, the user opens it.
 */

const Choice = z.object({ const: z.string(), title: z.string() });
const Field = z.looseObject({
  type: z.enum(['string', 'number', 'integer', 'boolean', 'array']),
  title: z.string().optional(),
  description: z.string().optional(),
  enum: z.array(z.string()).optional(),
  enumNames: z.array(z.string()).optional(),
  oneOf: z.array(Choice).optional(),
  items: z.looseObject({ enum: z.array(z.string()).optional(), anyOf: z.array(Choice).optional() }).optional(),
});
type Field = z.infer<typeof Field>;

export const McpForm = z.looseObject({
  type: z.literal('object'),
  // Optional only as Codex's protocol type has it: JSON holds no undefined.
  properties: z.record(z.string(), Field.optional()),
  required: z.array(z.string()).optional(),
});
export type McpForm = z.infer<typeof McpForm>;

/** A value of the form's content. */
export type FormValue = string | number | boolean | string[];

/** The reply to a form: its content, or declined / cancelled. */
export type FormReply =
  { action: 'accept'; content: { [field: string]: FormValue } } | { action: 'decline' | 'cancel'; content: null };

/** The form's fields, in its order. */
const fieldsOf = (form: McpForm): [string, Field][] =>
  Object.entries(form.properties).flatMap(([id, field]) => (field ? [[id, field]] : []));

/** A field's choices (label -> the value sent), or null when it takes an answer of one's own. */
function choicesOf(field: Field): Map<string, string | boolean> | null {
  if (field.type === 'boolean')
    return new Map<string, boolean>([
      ['Yes', true],
      ['No', false],
    ]);
  const titled = field.oneOf ?? field.items?.anyOf;
  if (titled) return new Map(titled.map((c) => [c.title, c.const]));
  const values = field.enum ?? field.items?.enum;
  if (values) return new Map(values.map((v, i) => [field.enumNames?.[i] ?? v, v]));
  return null;
}

/** The form's fields as Baton's questions, in the form's order. */
export function formQuestions(form: McpForm): Question[] {
  const required = new Set(form.required ?? []);
  return fieldsOf(form).map(([id, field]) => {
    const choices = choicesOf(field);
    return {
      id,
      header: field.title ?? id,
      question: field.description ?? field.title ?? id,
      options: choices ? [...choices.keys()].map((label) => ({ label, description: '' })) : null,
      isOther: choices === null,
      isSecret: false,
      required: required.has(id),
      multiple: field.type === 'array',
      ...(field.type === 'number' || field.type === 'integer' ? { answerType: field.type } : {}),
    };
  });
}

/** The form's content from answers the command checked against its questions. */
function content(form: McpForm, answers: Answers): { [field: string]: FormValue } {
  const out: { [field: string]: FormValue } = {};
  for (const [id, field] of fieldsOf(form)) {
    const given = answers[id];
    if (given === undefined) continue;
    const choices = choicesOf(field);
    const values = Array.isArray(given) ? given : [given];
    // A list's choices are strings (an enum's values, or its titled consts).
    if (field.type === 'array') {
      out[id] = values.map((v) => String(choices?.get(v) ?? v));
      continue;
    }
    const value = values[0]!;
    const chosen = choices?.get(value);
    if (chosen !== undefined) out[id] = chosen;
    else out[id] = field.type === 'number' || field.type === 'integer' ? Number(value) : value;
  }
  return out;
}

/** The reply to the form: its content (the answers), or declined / cancelled. */
export function formReply(form: McpForm, decision: ApprovalDecision | null, answers: Answers | null): FormReply {
  if (answers && decision === null) return { action: 'accept', content: content(form, answers) };
  return { action: decision === 'cancel' ? 'cancel' : 'decline', content: null };
}

/** A URL request's link: only a web address is shown to open. */
export const McpUrl = z.string().regex(/^https?:\/\/\S+$/i, 'an http(s) URL');

/** The reply to a URL request: accepted (the user opens it), declined or cancelled. */
export type UrlReply = { action: 'accept' | 'decline' | 'cancel'; content: null };

/** Either reply to an MCP server's request. */
export type McpReply = FormReply | UrlReply;

/** A URL request's reply from the user's decision: an accept (for the session too) opens it. */
export function urlReply(decision: ApprovalDecision | null): UrlReply {
  const action =
    decision === 'accept' || decision === 'acceptForSession' ? 'accept' : decision === 'cancel' ? 'cancel' : 'decline';
  return { action, content: null };
}
