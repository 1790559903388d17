/**
 * `JSON.stringify` for plain data, written in JavaScript because Node 20's native one
 * costs about 0.7 µs even for an object of five fields (issue 12 measured a run's small
 * snapshot, five fields in two objects, at 0.9 µs native and 0.7 µs here). The result is always exactly
 * `JSON.stringify(value)`: anything that is not plain data (a class instance, an object
 * with `toJSON`, a bigint, a structure deeper than `maxDepth`, so also a cycle) is handed
 * to `JSON.stringify` itself, which then writes it or throws as it always does.
 */
export function plainJson(value: unknown): string | undefined {
  return write(value, 0);
}

const maxDepth = 64;

/** A string JSON writes between quotes as it is: no quote, backslash, control character or surrogate. */
const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;

export const quoted = (v: string): string => (needsEscape.test(v) ? JSON.stringify(v) : `"${v}"`);

function write(v: unknown, depth: number): string | undefined {
  // Comparisons of typeof, not a switch on it: V8 folds each into a type check.
  if (typeof v === 'string') return quoted(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'object') {
    if (v === null) return 'null';
    if (depth < maxDepth) {
      if (Array.isArray(v)) return 'toJSON' in v ? JSON.stringify(v) : array(v, depth + 1);
      const proto = Object.getPrototypeOf(v);
      if ((proto === Object.prototype || proto === null) && !('toJSON' in v)) return object(v, depth + 1);
    }
    return JSON.stringify(v);
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'undefined' || typeof v === 'function' || typeof v === 'symbol') return undefined;
  return JSON.stringify(v); // a bigint: JSON.stringify throws its usual TypeError
}

function array(v: readonly unknown[], depth: number): string {
  let out = '[';
  for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (write(v[i], depth) ?? 'null');
  return out + ']';
}

/** A key's JSON as the first member of an object (`"k":`) and as a later one (`,"k":`). */
interface KeyJson {
  first: string;
  later: string;
}

/** Keys repeat from snapshot to snapshot (a machine's context fields): their JSON is kept, up to a bound. */
const keyJson = new Map<string, KeyJson>();
const keyJsonLimit = 4_096;

function key(k: string): KeyJson {
  let json = keyJson.get(k);
  if (json === undefined) {
    const first = `${quoted(k)}:`;
    json = { first, later: `,${first}` };
    if (keyJson.size < keyJsonLimit) keyJson.set(k, json);
  }
  return json;
}

const hasOwn = Object.prototype.hasOwnProperty;

function object(v: object, depth: number): string {
  let out = '{';
  const record = v as Record<string, unknown>;
  for (const k in record) {
    // hasOwnProperty.call on the for-in key is a pattern V8 answers from the enum cache.
    if (!hasOwn.call(record, k)) continue;
    const json = write(record[k], depth);
    if (json === undefined) continue;
    const keyed = key(k);
    out = out.length > 1 ? out + keyed.later + json : out + keyed.first + json;
  }
  return out + '}';
}
