import type { z } from 'zod';
import { WriterProgram, type KeyOrder } from './json-form-program.js';

/**
 * The JSON of a value in its parsed form, made by a writer compiled from a zod schema
 * (issue 12: validation at constant cost). `jsonForm(schema)(value)` is a string only when
 * `schema.safeParse(value)` would succeed and `JSON.stringify` of zod's parsed copy would
 * give exactly that string: every key known and in the schema's order, no default to fill
 * in, every check of the schema met. Values built by typed code inside the runtime nearly
 * always are in that form, and then one pass both checks them and writes their JSON,
 * without zod's copy and without a second walk by `JSON.stringify`.
 *
 * The writer is generated as JavaScript source (`json-form-program.ts`): V8 inlines its
 * calls and caches each property read, where the tree of closures it replaced made every
 * call site megamorphic. Issue 12 measured a run's projection row at 1.4 µs by closures,
 * plus about 1.8 µs to flatten their string before SQLite could bind it; generated, 1.1 µs
 * with the flattening.
 *
 * `false` means "not sure", never "invalid": the caller then parses with zod itself, which
 * refuses a bad value with its usual typed error (or strips and fills in what it must).
 * So this writer may only be stricter than zod, never looser; a schema using anything it
 * does not know (a transform, a refinement, a string format other than a regex) compiles
 * to "not sure" and zod does all the work.
 *
 * Values are plain data, as JSON has them: own enumerable properties of plain objects.
 */
export type JsonForm = (value: unknown) => string | false;

const compiled = { schema: new WeakMap<z.ZodType, JsonForm>(), any: new WeakMap<z.ZodType, JsonForm>() };

/**
 * The writer of `schema`. With `keyOrder` `any` an object's keys may come in any order (its
 * JSON is still zod's, in the schema's order): for checking a value from outside, such as
 * a command, whose parsed copy would differ from it only in key order.
 */
export function jsonForm(schema: z.ZodType, keyOrder: KeyOrder = 'schema'): JsonForm {
  let writer = compiled[keyOrder].get(schema);
  if (!writer) {
    const program = new WriterProgram(keyOrder);
    const part = program.compile(schema);
    writer = part ? program.link(part.name) : () => false;
    compiled[keyOrder].set(schema, writer);
  }
  return writer;
}

export type StoredForm<T> = { ok: true; value: T; json: string } | { ok: false; error: z.ZodError };

/**
 * A value as the store keeps it: its parsed form and that form's JSON. One pass when the
 * value already is in its parsed form (`jsonForm`), else zod's parse and `JSON.stringify`.
 */
export function storedForm<T>(schema: z.ZodType<T>, value: unknown): StoredForm<T> {
  const json = jsonForm(schema)(value);
  if (json !== false) return { ok: true, value: value as T, json };
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data, json: JSON.stringify(parsed.data) }
    : { ok: false, error: parsed.error };
}
