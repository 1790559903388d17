import { z } from 'zod';
import type { Answers } from '../../domain/answers.js';
import type { Question } from '../../domain/entities.js';
import type { ApprovalDecision } from '../../domain/statuses.js';
import type {
  McpServerElicitationRequestParams,
  McpServerElicitationRequestResponse,
} from '../../../vendor/codex-protocol/v2/index.js';
import type { JsonValue } from '../../../vendor/codex-protocol/serde_json/JsonValue.js';

/**
 * An MCP server's request for input (`elicitation/create`), which Codex passes on as
 * `mcpServer/elicitation/request` <-> Baton's questions. A form's fields become questions
 * (a choice's options are its labels; a yes/no field's are Yes and No; a number's answer
 * must be one), its answers go back as the form's content, typed as the form asks; a
 * declined question is the form declined (or cancelled). Other modes (a URL to visit,
 * OpenAI's own) are not questions Baton can ask: Codex is told Baton does not handle them,
 * which it takes as declined.
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
export const ElicitationForm = z.looseObject({
  threadId: z.string(),
  turnId: z.string().nullable(),
  serverName: z.string(),
  mode: z.literal('form'),
  message: z.string(),
  requestedSchema: z.looseObject({
    type: z.literal('object'),
    // Optional only as the protocol's type has it: JSON holds no undefined.
    properties: z.record(z.string(), Field.optional()),
    required: z.array(z.string()).optional(),
  }),
});
export type ElicitationForm = z.infer<typeof ElicitationForm>;
type FormSchema = ElicitationForm['requestedSchema'];
type FieldOf = z.infer<typeof Field>;

/** The form's fields, in its order. */
const fieldsOf = (schema: FormSchema): [string, FieldOf][] =>
  Object.entries(schema.properties).flatMap(([id, field]) => (field ? [[id, field]] : []));

// The form as Codex's protocol has it must read as one: a change there breaks the build.
type ProtocolForm = Extract<McpServerElicitationRequestParams, { mode: 'form' }>;
const formIsProtocols = (form: ProtocolForm): z.input<typeof ElicitationForm> => form;
void formIsProtocols;

/** A field's choices (label -> the value sent), or null when it takes an answer of one's own. */
function choicesOf(field: FieldOf): Map<string, string | boolean> | null {
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
export function elicitationQuestions(schema: FormSchema): Question[] {
  const required = new Set(schema.required ?? []);
  return fieldsOf(schema).map(([id, field]) => {
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
function content(schema: FormSchema, answers: Answers): { [field: string]: JsonValue } {
  const out: { [field: string]: JsonValue } = {};
  for (const [id, field] of fieldsOf(schema)) {
    const given = answers[id];
    if (given === undefined) continue;
    const values = Array.isArray(given) ? given : [given];
    const choices = choicesOf(field);
    const typed = values.map((v): JsonValue => {
      const chosen = choices?.get(v);
      if (chosen !== undefined) return chosen;
      return field.type === 'number' || field.type === 'integer' ? Number(v) : v;
    });
    out[id] = field.type === 'array' ? typed : typed[0]!;
  }
  return out;
}

/** The reply to the form: its content (the answers), or declined / cancelled. */
export function elicitationReply(
  schema: FormSchema,
  decision: ApprovalDecision | null,
  answers: Answers | null,
): McpServerElicitationRequestResponse {
  if (answers && decision === null) return { action: 'accept', content: content(schema, answers), _meta: null };
  return { action: decision === 'cancel' ? 'cancel' : 'decline', content: null, _meta: null };
}
