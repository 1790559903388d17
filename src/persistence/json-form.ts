import type { z } from 'zod';

/**
 * The JSON of a value in its parsed form, made by a writer compiled from a zod schema
 * (issue 12: validation at constant cost). `jsonForm(schema)(value)` is a string only when
 * `schema.safeParse(value)` would succeed and `JSON.stringify` of zod's parsed copy would
 * give exactly that string: every key known and in the schema's order, no default to fill
 * in, every check of the schema met. Values built by typed code inside the runtime nearly
 * always are in that form, and then one pass both checks them and writes their JSON,
 * without zod's copy and without a second walk by `JSON.stringify`.
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

/** A part's JSON; `undefined` where JSON has no value (an unknown part holding undefined), so an object leaves the key out. */
type PartJson = (value: unknown) => string | undefined | false;

const compiled = new WeakMap<z.ZodType, JsonForm>();

export function jsonForm(schema: z.ZodType): JsonForm {
  let writer = compiled.get(schema);
  if (!writer) {
    const part = compile(schema);
    writer = part ? (v) => part(v) ?? false : () => false;
    compiled.set(schema, writer);
  }
  return writer;
}

/** A string JSON writes between quotes as it is: no quote, backslash, control character or surrogate. */
const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;
const quoted = (v: string): string => (needsEscape.test(v) ? JSON.stringify(v) : `"${v}"`);

/** A pattern `^[...]+$` whose class holds only letters, digits and `_ . : -` (an id's): what it matches needs no escape. */
const onlyPlainCharacters = (p: RegExp): boolean => /^\^\[(?:A-Z|a-z|0-9|[A-Za-z0-9_.:])*-?\]\+\$$/.test(p.source);

/** The part of zod's definitions this compiler reads (zod 4 `_zod.def`). */
interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  innerType?: Schema;
  element?: Schema;
  keyType?: Schema;
  valueType?: Schema;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  options?: Schema[];
  discriminator?: string;
  values?: unknown[];
  entries?: Record<string, unknown>;
  mode?: string;
  coerce?: boolean;
}
interface CheckDef {
  check: string;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
}
interface Schema {
  _zod: { def: Def };
}

const defOf = (schema: Schema | z.ZodType): Def => (schema as Schema)._zod.def;

const isPlainRecord = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** A writer per value, or null when the schema uses something this compiler does not know. */
function compile(schema: Schema | z.ZodType): PartJson | null {
  const def = defOf(schema);
  if (def.coerce) return null;
  switch (def.type) {
    case 'string':
      return compileString(def);
    case 'number':
      return compileNumber(def);
    case 'boolean':
      return noChecks(def) ? (v) => (v === true ? 'true' : v === false ? 'false' : false) : null;
    case 'null':
      return (v) => (v === null ? 'null' : false);
    // zod keeps an unknown part as it is, so its JSON is JSON.stringify's.
    case 'unknown':
    case 'any':
      return (v) => JSON.stringify(v);
    case 'literal':
    case 'enum': {
      const values = def.type === 'literal' ? (def.values ?? []) : Object.values(def.entries ?? {});
      const json = new Map(values.map((value) => [value, JSON.stringify(value)]));
      return (v) => json.get(v) ?? false;
    }
    case 'nullable': {
      const inner = def.innerType && compile(def.innerType);
      return inner ? (v) => (v === null ? 'null' : inner(v)) : null;
    }
    // A present value is parsed by the inner schema; an absent one is the object's business.
    case 'optional':
    case 'default': {
      const inner = def.innerType && compile(def.innerType);
      return inner ? (v) => v !== undefined && inner(v) : null;
    }
    case 'array':
      return compileArray(def);
    case 'record':
      return compileRecord(def);
    case 'object':
      return compileObject(def);
    case 'union':
      return def.discriminator === undefined ? compileUnion(def) : compileDiscriminated(def);
    default:
      return null;
  }
}

const noChecks = (def: Def): boolean => !def.checks || def.checks.length === 0;

function compileString(def: Def): PartJson | null {
  let min = 0;
  let max = Infinity;
  const patterns: RegExp[] = [];
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'min_length' && d.minimum !== undefined) min = Math.max(min, d.minimum);
    else if (d.check === 'max_length' && d.maximum !== undefined) max = Math.min(max, d.maximum);
    else if (d.check === 'length_equals' && d.length !== undefined)
      ((min = Math.max(min, d.length)), (max = Math.min(max, d.length)));
    else if (d.check === 'string_format' && d.format === 'regex' && d.pattern) patterns.push(d.pattern);
    else return null;
  }
  const plain = patterns.some(onlyPlainCharacters);
  return (v) => {
    if (typeof v !== 'string' || v.length < min || v.length > max) return false;
    for (const p of patterns) {
      p.lastIndex = 0;
      if (!p.test(v)) return false;
    }
    return plain ? `"${v}"` : quoted(v);
  };
}

function compileNumber(def: Def): PartJson | null {
  let integer = false;
  let low = -Infinity;
  let lowInclusive = true;
  let high = Infinity;
  let highInclusive = true;
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'number_format' && d.format === 'safeint') integer = true;
    else if (d.check === 'greater_than' && d.value !== undefined && d.value >= low)
      ((low = d.value), (lowInclusive = d.inclusive === true));
    else if (d.check === 'less_than' && d.value !== undefined && d.value <= high)
      ((high = d.value), (highInclusive = d.inclusive === true));
    else return null;
  }
  // A finite number's JSON is its String (both write -0 as 0).
  return (v) =>
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (!integer || Number.isSafeInteger(v)) &&
    (lowInclusive ? v >= low : v > low) &&
    (highInclusive ? v <= high : v < high) &&
    String(v);
}

function compileArray(def: Def): PartJson | null {
  let min = 0;
  let max = Infinity;
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'min_length' && d.minimum !== undefined) min = Math.max(min, d.minimum);
    else if (d.check === 'max_length' && d.maximum !== undefined) max = Math.min(max, d.maximum);
    else return null;
  }
  const element = def.element && compile(def.element);
  if (!element) return null;
  return (v) => {
    if (!Array.isArray(v) || v.length < min || v.length > max) return false;
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const json = element(v[i]);
      if (json === false) return false;
      out += (i ? ',' : '') + (json ?? 'null');
    }
    return out + ']';
  };
}

/** Only records keyed by plain strings: a key schema with checks or a value set is left to zod. */
function compileRecord(def: Def): PartJson | null {
  const key = def.keyType && defOf(def.keyType);
  if (!key || key.type !== 'string' || !noChecks(key) || def.mode === 'loose') return null;
  const value = def.valueType && compile(def.valueType);
  if (!value) return null;
  return (v) => {
    if (!isPlainRecord(v)) return false;
    const keys = Object.keys(v);
    if (keys.length !== Object.getOwnPropertyNames(v).length) return false;
    let out = '{';
    for (const k of keys) {
      if (k === '__proto__' || k === 'toJSON') return false;
      const json = value(v[k]);
      if (json === false) return false;
      if (json !== undefined) out += (out.length > 1 ? ',' : '') + quoted(k) + ':' + json;
    }
    return out + '}';
  };
}

/**
 * The value's keys must be the shape's, in the shape's order (zod's output order), with
 * only optional ones missing: a missing default or an unknown key makes zod's copy differ.
 */
function compileObject(def: Def): PartJson | null {
  if (!noChecks(def) || !def.shape) return null;
  if (def.catchall && defOf(def.catchall).type !== 'never') return null;
  const keys = Object.keys(def.shape);
  const fields: PartJson[] = [];
  const optional: boolean[] = [];
  for (const k of keys) {
    const field = def.shape[k]!;
    const part = compile(field);
    if (!part || k === '__proto__') return null;
    fields.push(part);
    optional.push(defOf(field).type === 'optional');
  }
  const names = keys.map((k) => `${quoted(k)}:`);
  const n = keys.length;
  return (v) => {
    if (!isPlainRecord(v)) return false;
    let out = '{';
    let j = 0;
    for (const k in v) {
      while (j < n && keys[j] !== k) {
        if (!optional[j] || keys[j]! in v) return false;
        j++;
      }
      if (j === n) return false;
      const json = fields[j]!(v[k]);
      if (json === false) return false;
      if (json !== undefined) out += (out.length > 1 ? ',' : '') + names[j] + json;
      j++;
    }
    for (; j < n; j++) if (!optional[j] || keys[j]! in v) return false;
    return out + '}';
  };
}

/** zod takes the first option that parses: an option may take the value only if every earlier one surely refuses it. */
function compileUnion(def: Def): PartJson | null {
  const options = def.options ?? [];
  const parts: PartJson[] = [];
  const refuses: ((v: unknown) => boolean)[] = [];
  for (const o of options) {
    const part = compile(o);
    if (!part) return null;
    parts.push(part);
    refuses.push(surelyRefuses(defOf(o)));
  }
  return (v) => {
    for (let i = 0; i < parts.length; i++) {
      const json = parts[i]!(v);
      if (json !== false) return json;
      if (!refuses[i]!(v)) return false;
    }
    return false;
  };
}
/** True when the schema refuses the value by its type alone (false when unsure). */
function surelyRefuses(def: Def): (v: unknown) => boolean {
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
      return (v) => typeof v !== def.type;
    case 'null':
      return (v) => v !== null;
    case 'array':
      return (v) => !Array.isArray(v);
    case 'object':
    case 'record':
      return (v) => typeof v !== 'object' || v === null || Array.isArray(v);
    case 'nullable': {
      const inner = def.innerType ? surelyRefuses(defOf(def.innerType)) : () => false;
      return (v) => v !== null && inner(v);
    }
    default:
      return () => false;
  }
}

function compileDiscriminated(def: Def): PartJson | null {
  const key = def.discriminator!;
  const byValue = new Map<unknown, PartJson>();
  for (const o of def.options ?? []) {
    const shape = defOf(o).shape;
    const tag = shape?.[key] && defOf(shape[key]);
    if (!tag || (tag.type !== 'literal' && tag.type !== 'enum')) return null;
    const part = compile(o);
    if (!part) return null;
    for (const value of tag.type === 'literal' ? (tag.values ?? []) : Object.values(tag.entries ?? {})) {
      if (byValue.has(value)) return null;
      byValue.set(value, part);
    }
  }
  return (v) => {
    if (!isPlainRecord(v)) return false;
    const part = byValue.get(v[key]);
    return part !== undefined && part(v);
  };
}
