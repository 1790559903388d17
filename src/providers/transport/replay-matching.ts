import { isDeepStrictEqual } from 'node:util';
import { substitute, withValues, type Vars } from './transcript.js';

/**
 * How a replay matches what Baton sends against a recording whose run-varying ids (the
 * ones Baton makes up afresh each run) are `{{sentN}}` placeholders: it binds each one to
 * the value at its place in what Baton really sent, puts the bound values into what it
 * expects next, and names the fields that still differ. Claude's and ACP's replays use it.
 */

const PLACEHOLDER = /\{\{(\w+)\}\}/g;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Binds the unbound `{{sentN}}` placeholders of one template string to the parts of `sent` at their places. */
function bindString(template: string, sent: string, vars: Vars): void {
  const unbound: string[] = [];
  const pattern = template.split(PLACEHOLDER).map((part, i) => {
    if (i % 2 === 0) return escape(part);
    const value = vars[part];
    if (value !== undefined) return escape(value);
    if (!/^sent\d+$/.test(part)) return escape(`{{${part}}}`);
    unbound.push(part);
    return '(.+?)';
  });
  if (unbound.length === 0) return;
  const match = new RegExp(`^${pattern.join('')}$`).exec(sent);
  if (!match) return;
  unbound.forEach((name, i) => {
    const value = match[i + 1]!;
    // Two fresh ids are two values: one already bound elsewhere is not bound again (the comparison fails).
    if (vars[name] === undefined && !Object.values(vars).includes(value)) vars[name] = value;
  });
}

/**
 * Binds the `{{sentN}}` placeholders an expected value (a frame, a command line) has, and
 * `vars` lacks, to the values at the same places in what Baton sent.
 */
export function bindSentIds(expected: unknown, sent: unknown, vars: Vars): void {
  if (typeof expected === 'string') {
    if (typeof sent === 'string') bindString(expected, sent, vars);
    return;
  }
  if (Array.isArray(expected) && Array.isArray(sent)) {
    expected.forEach((e, i) => bindSentIds(e, sent[i], vars));
    return;
  }
  if (expected && typeof expected === 'object' && sent && typeof sent === 'object' && !Array.isArray(sent))
    for (const [key, e] of Object.entries(expected))
      bindSentIds(e, Object.entries(sent).find(([k]) => k === key)?.[1], vars);
}

/** An expected value with the vars (and the ids bound so far) put in. */
export const expectedOf = (template: unknown, vars: Vars): unknown => substitute(template, withValues(vars));

/** Where two frames differ, as `path: expected …, sent …` lines (for a replay's mismatch message). */
export function frameDifferences(expected: unknown, sent: unknown, path = ''): string[] {
  if (isDeepStrictEqual(expected, sent)) return [];
  const bothObjects =
    expected &&
    sent &&
    typeof expected === 'object' &&
    typeof sent === 'object' &&
    Array.isArray(expected) === Array.isArray(sent);
  if (!bothObjects) return [`${path || '(frame)'}: expected ${JSON.stringify(expected)}, sent ${JSON.stringify(sent)}`];
  const keys = new Set([...Object.keys(expected), ...Object.keys(sent)]);
  const at = (o: object, k: string): unknown => Object.entries(o).find(([key]) => key === k)?.[1];
  return [...keys].flatMap((k) => frameDifferences(at(expected, k), at(sent, k), `${path}${path ? '.' : ''}${k}`));
}
