import type { z } from 'zod';
import { plainJson, quoted } from './plain-json.js';

// The code generator behind `jsonForm` (see there for what a writer promises): one
// JavaScript function per schema node, each reading its fields by name. Keys and patterns
// come from Baton's own schemas and enter the source only as string literals or constants.

/** A pattern `^[...]+$` whose class holds only letters, digits and `_ . : -` (an id's): what it matches needs no escape. */
const onlyPlainCharacters = (p: RegExp): boolean => /^\^\[(?:A-Z|a-z|0-9|[A-Za-z0-9_.:])*-?\]\+\$$/.test(p.source);

const isPlainRecord = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** A JavaScript string literal of `text` (JSON's string syntax is JavaScript's). */
const literal = (text: string): string => JSON.stringify(text);

/** A discriminator value as a `case` label (a strict-equality match), or null when it has none. */
const caseLabel = (value: unknown): string | null =>
  typeof value === 'string'
    ? literal(value)
    : (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean' || value === null
      ? String(value)
      : null;

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

const noChecks = (def: Def): boolean => !def.checks || def.checks.length === 0;

/**
 * The source of a string's or array's length checks (` || v.length < 2`), given every other
 * check to `other` (which says whether it knows it); null when a check is unknown or a bound
 * is not a whole number, so the schema is left to zod.
 */
function lengthTest(def: Def, other: (check: CheckDef) => boolean): string | null {
  let min = 0;
  let max = Infinity;
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'min_length') min = Math.max(min, d.minimum ?? NaN);
    else if (d.check === 'max_length') max = Math.min(max, d.maximum ?? NaN);
    else if (d.check === 'length_equals')
      ((min = Math.max(min, d.length ?? NaN)), (max = Math.min(max, d.length ?? NaN)));
    else if (!other(d)) return null;
  }
  if (!Number.isSafeInteger(min) || (max !== Infinity && !Number.isSafeInteger(max))) return null;
  return `${min > 0 ? ` || v.length < ${min}` : ''}${max < Infinity ? ` || v.length > ${max}` : ''}`;
}

/**
 * A compiled part: the name of its generated function, which returns the part's JSON,
 * `false` (not sure) or `undefined` (JSON has no value: an unknown part holding undefined,
 * which an object leaves out) when `mayOmit`.
 */
interface Part {
  name: string;
  mayOmit: boolean;
}

/**
 * In what order an object's keys may come: `schema` (zod's output order, so the value itself
 * is its parsed form) or `any` (the JSON is still written in the schema's order, so it is
 * still exactly zod's; only the value's own keys may differ from its parsed copy in order).
 */
export type KeyOrder = 'schema' | 'any';

/** The generated functions of one top-level schema, with the constants they read. */
export class WriterProgram {
  private readonly functions: string[] = [];
  private readonly constants: unknown[] = [];
  private readonly parts = new Map<Schema | z.ZodType, Part | null>();

  constructor(private readonly keyOrder: KeyOrder = 'schema') {}

  /** Links the generated source into the writer whose entry is `entry`. */
  link(entry: string): (value: unknown) => string | false {
    const source = `${this.functions.join('\n')}\nreturn (v) => ${entry}(v) ?? false;`;
    return new Function('c', 'isPlainRecord', 'quoted', 'plainJson', source)(
      this.constants,
      isPlainRecord,
      quoted,
      plainJson,
    ) as (value: unknown) => string | false;
  }

  /** The part for `schema` (each schema node compiled once per program), or null when unknown. */
  compile(schema: Schema | z.ZodType): Part | null {
    if (this.parts.has(schema)) return this.parts.get(schema)!;
    const def = defOf(schema);
    const name = `f${this.parts.size}`;
    this.parts.set(schema, null); // a schema that refers to itself is left to zod
    const made = def.coerce ? null : this.body(def);
    const part = made && { name, mayOmit: made.mayOmit };
    if (made) this.functions.push(`function ${name}(v) {\n${made.body}\n}`);
    this.parts.set(schema, part);
    return part;
  }

  private constant(value: unknown): string {
    this.constants.push(value);
    return `c[${this.constants.length - 1}]`;
  }

  private body(def: Def): { body: string; mayOmit: boolean } | null {
    const sure = (body: string | null) => (body === null ? null : { body, mayOmit: false });
    switch (def.type) {
      case 'string':
        return sure(this.string(def));
      case 'number':
        return sure(this.number(def));
      case 'boolean':
        return sure(noChecks(def) ? `return v === true ? 'true' : v === false ? 'false' : false;` : null);
      case 'null':
        return sure(`return v === null ? 'null' : false;`);
      // zod keeps an unknown part as it is, so its JSON is JSON.stringify's.
      case 'unknown':
      case 'any':
        return { body: 'return plainJson(v);', mayOmit: true };
      case 'literal':
      case 'enum': {
        const values = def.type === 'literal' ? (def.values ?? []) : Object.values(def.entries ?? {});
        // JSON has no bigint (a literal of one is left to zod).
        if (values.some((value) => typeof value === 'bigint')) return null;
        const labels = values.map(caseLabel);
        // A switch of literal cases: V8 compares them in place, where a Map hashes the value first.
        if (labels.every((label) => label !== null))
          return sure(
            [
              'switch (v) {',
              ...values.map((value, i) => `  case ${labels[i]}: return ${literal(JSON.stringify(value))};`),
              '  default: return false;',
              '}',
            ].join('\n'),
          );
        const json = new Map(values.map((value) => [value, JSON.stringify(value)]));
        return sure(`return ${this.constant(json)}.get(v) ?? false;`);
      }
      case 'nullable': {
        const inner = def.innerType ? this.compile(def.innerType) : null;
        return inner && { body: `return v === null ? 'null' : ${inner.name}(v);`, mayOmit: inner.mayOmit };
      }
      // A present value is parsed by the inner schema; an absent one is the object's business.
      case 'optional':
      case 'default': {
        const inner = def.innerType ? this.compile(def.innerType) : null;
        return inner && { body: `return v !== undefined && ${inner.name}(v);`, mayOmit: inner.mayOmit };
      }
      case 'array':
        return sure(this.array(def));
      case 'record':
        return sure(this.record(def));
      case 'object':
        return sure(this.object(def));
      case 'union':
        return def.discriminator === undefined ? this.union(def) : this.discriminated(def);
      default:
        return null;
    }
  }

  private string(def: Def): string | null {
    const patterns: RegExp[] = [];
    const length = lengthTest(def, (d) => {
      if (d.check !== 'string_format' || d.format !== 'regex' || !d.pattern) return false;
      patterns.push(d.pattern);
      return true;
    });
    if (length === null) return null;
    const lines = [`if (typeof v !== 'string'${length}) return false;`];
    for (const p of patterns) {
      const pattern = this.constant(p);
      lines.push(`${pattern}.lastIndex = 0;`, `if (!${pattern}.test(v)) return false;`);
    }
    lines.push(patterns.some(onlyPlainCharacters) ? `return '"' + v + '"';` : 'return quoted(v);');
    return lines.join('\n');
  }

  private number(def: Def): string | null {
    const conditions = [`typeof v === 'number'`, 'Number.isFinite(v)'];
    for (const c of def.checks ?? []) {
      const d = c._zod.def;
      if (d.check === 'number_format' && d.format === 'safeint') conditions.push('Number.isSafeInteger(v)');
      else if (d.check === 'greater_than' && typeof d.value === 'number' && Number.isFinite(d.value))
        conditions.push(`v ${d.inclusive ? '>=' : '>'} ${d.value}`);
      else if (d.check === 'less_than' && typeof d.value === 'number' && Number.isFinite(d.value))
        conditions.push(`v ${d.inclusive ? '<=' : '<'} ${d.value}`);
      else return null;
    }
    // A finite number's JSON is its String (both write -0 as 0).
    return `return ${conditions.join(' && ')} && String(v);`;
  }

  private array(def: Def): string | null {
    const length = lengthTest(def, () => false);
    if (length === null) return null;
    const element = def.element ? this.compile(def.element) : null;
    if (!element) return null;
    return [
      `if (!Array.isArray(v)${length}) return false;`,
      `let out = '[';`,
      'for (let i = 0; i < v.length; i++) {',
      `  const json = ${element.name}(v[i]);`,
      '  if (json === false) return false;',
      `  out += (i ? ',' : '') + (json ?? 'null');`,
      '}',
      `return out + ']';`,
    ].join('\n');
  }

  /** Only records keyed by plain strings: a key schema with checks or a value set is left to zod. */
  private record(def: Def): string | null {
    const key = def.keyType && defOf(def.keyType);
    if (!key || key.type !== 'string' || !noChecks(key) || def.mode === 'loose') return null;
    const value = def.valueType ? this.compile(def.valueType) : null;
    if (!value) return null;
    return [
      'if (!isPlainRecord(v)) return false;',
      'const keys = Object.keys(v);',
      'if (keys.length !== Object.getOwnPropertyNames(v).length) return false;',
      `let out = '{';`,
      'for (const k of keys) {',
      `  if (k === '__proto__' || k === 'toJSON') return false;`,
      `  const json = ${value.name}(v[k]);`,
      '  if (json === false) return false;',
      `  if (json !== undefined) out += (out.length > 1 ? ',' : '') + quoted(k) + ':' + json;`,
      '}',
      `return out + '}';`,
    ].join('\n');
  }

  /**
   * The value's keys must be the shape's, in the shape's order (zod's output order), with
   * only optional ones missing: a missing default or an unknown key makes zod's copy differ.
   */
  private object(def: Def): string | null {
    if (!noChecks(def) || !def.shape) return null;
    if (def.catchall && defOf(def.catchall).type !== 'never') return null;
    const keys = Object.keys(def.shape);
    const optional = keys.map((k) => defOf(def.shape![k]!).type === 'optional');
    const fields: Part[] = [];
    for (const k of keys) {
      const part = this.compile(def.shape[k]!);
      if (!part || k === '__proto__') return null;
      fields.push(part);
    }
    const keyList = this.constant(keys);
    const lines = ['if (!isPlainRecord(v)) return false;'];
    if (this.keyOrder === 'any') {
      // Every key known, every required one there; the JSON below follows the schema's order.
      lines.push(
        'for (const k in v) switch (k) {',
        ...keys.map((k) => `  case ${literal(k)}:`),
        '    break;',
        '  default:',
        '    return false;',
        '}',
        ...keys.filter((_, i) => !optional[i]).map((k) => `if (!(${literal(k)} in v)) return false;`),
      );
    } else if (optional.some(Boolean)) {
      const optionalList = this.constant(optional);
      lines.push(
        'let j = 0;',
        'for (const k in v) {',
        `  while (j < ${keys.length} && ${keyList}[j] !== k) {`,
        `    if (!${optionalList}[j] || ${keyList}[j] in v) return false;`,
        '    j++;',
        '  }',
        `  if (j === ${keys.length}) return false;`,
        '  j++;',
        '}',
        `for (; j < ${keys.length}; j++) if (!${optionalList}[j] || ${keyList}[j] in v) return false;`,
      );
    } else {
      lines.push(
        'let n = 0;',
        `for (const k in v) if (k !== ${keyList}[n++]) return false;`,
        `if (n !== ${keys.length}) return false;`,
      );
    }
    const alwaysWritten = keys.map((_, i) => !optional[i] && !fields[i]!.mayOmit);
    if (alwaysWritten.every(Boolean)) {
      // Every field is written: one expression, each key with its comma a single literal.
      keys.forEach((k, i) =>
        lines.push(`const j${i} = ${fields[i]!.name}(v[${literal(k)}]);`, `if (j${i} === false) return false;`),
      );
      const parts = keys.map((k, i) => `${literal(`${i ? ',' : '{'}${quoted(k)}:`)} + j${i}`);
      lines.push(`return ${parts.length ? parts.join(' + ') : `'{'`} + '}';`);
      return lines.join('\n');
    }
    // Once a field that is surely written is behind, every later one starts with a comma.
    let written = false;
    lines.push(`let out = '{';`, 'let json;');
    keys.forEach((k, i) => {
      const read = `v[${literal(k)}]`;
      const head = written ? literal(`,${quoted(k)}:`) : `(out.length > 1 ? ',' : '') + ${literal(`${quoted(k)}:`)}`;
      const write = fields[i]!.mayOmit ? `if (json !== undefined) out += ${head} + json;` : `out += ${head} + json;`;
      const step = `json = ${fields[i]!.name}(${read}); if (json === false) return false; ${write}`;
      lines.push(optional[i] ? `if (${literal(k)} in v) { ${step} }` : step);
      if (alwaysWritten[i]) written = true;
    });
    lines.push(`return out + '}';`);
    return lines.join('\n');
  }

  /** zod takes the first option that parses: an option may take the value only if every earlier one surely refuses it. */
  private union(def: Def): { body: string; mayOmit: boolean } | null {
    const lines = ['let json;'];
    let mayOmit = false;
    for (const o of def.options ?? []) {
      const part = this.compile(o);
      if (!part) return null;
      mayOmit ||= part.mayOmit;
      lines.push(
        `json = ${part.name}(v);`,
        'if (json !== false) return json;',
        `if (!${this.constant(surelyRefuses(defOf(o)))}(v)) return false;`,
      );
    }
    lines.push('return false;');
    return { body: lines.join('\n'), mayOmit };
  }

  private discriminated(def: Def): { body: string; mayOmit: boolean } | null {
    const key = def.discriminator!;
    const cases = new Map<unknown, string>();
    for (const o of def.options ?? []) {
      const shape = defOf(o).shape;
      const tag = shape?.[key] && defOf(shape[key]);
      if (!tag || (tag.type !== 'literal' && tag.type !== 'enum')) return null;
      const part = this.compile(o);
      if (!part) return null;
      for (const value of tag.type === 'literal' ? (tag.values ?? []) : Object.values(tag.entries ?? {})) {
        const label = caseLabel(value);
        if (label === null || cases.has(value)) return null;
        cases.set(value, `case ${label}: return ${part.name}(v);`);
      }
    }
    // An option is an object, so its JSON is never omitted.
    return {
      body: [
        'if (!isPlainRecord(v)) return false;',
        `switch (v[${literal(key)}]) {`,
        ...cases.values(),
        '  default: return false;',
        '}',
      ].join('\n'),
      mayOmit: false,
    };
  }
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
