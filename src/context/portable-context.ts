/**
 * The portable context builder: Baton's own turn items -> bounded, provider-neutral text.
 * One builder serves every place a provider must be told what happened without its own
 * history: the reseed of a broken or divergent provider thread, and later provider
 * switches, portable forks and merge-back. Pure and deterministic: the same items and
 * options give the same text, so what a provider was told can always be rebuilt and audited.
 */

/** One of Baton's turn items, with the ordinal of the run it belongs to. */
export interface PortableItem {
  runOrdinal: number;
  kind: string;
  text: string;
  status: string;
  data: Record<string, unknown>;
  /** Items of rolled-back runs are not part of the conversation any more. */
  rolledBack?: boolean;
}

export type PortableMode = { type: 'full' } | { type: 'delta'; sinceRunOrdinal: number };

export interface PortableContextOptions {
  mode: PortableMode;
  /** What the account is of, in its header (default: the conversation, or what happened since). */
  scope?: string;
  /** The text is never longer than this; the newest items are kept, what was left out is said. */
  maxChars: number;
}

export interface PortableContext {
  strategy: PortableMode['type'];
  text: string;
  /** The runs whose items the text draws on (ascending). */
  coveredRunOrdinals: number[];
  /** Items left out to keep the text within `maxChars` (the oldest go first). */
  omittedItems: number;
  chars: number;
}

/** Below this the header and one clipped item no longer fit meaningfully. */
export const minPortableChars = 400;
/** Room kept for the header, whose numbers are only known at the end. */
const headerReserve = 240;

/** How each kind of item is told; kinds not listed (reasoning, checkpoints, Baton's own seeds) are left out. */
const labels: Record<string, string> = {
  user_message: 'User',
  assistant_message: 'Assistant',
  tool_call: 'Tool call',
  plan: 'Plan',
  todo_list: 'Todo list',
  approval_request: 'Approval request',
  user_input_request: 'Question to the user',
  subagent: 'Subagent',
};

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = ` …[${text.length - max} more chars left out]`;
  return text.slice(0, Math.max(0, max - note.length)) + note;
}

/** The most of a tool's output told: its end, where a command says how it went. */
export const maxToolOutputChars = 1_000;

/** The end of `text`, at most `max` characters, saying how much came before. */
function tail(text: string, max: number): string {
  if (text.length <= max) return text;
  return `…[${text.length - max} earlier chars left out]${text.slice(text.length - max)}`;
}

/** What a tool call did, beyond its title: the files it changed and the end of its output. */
function toolOutcome(data: Record<string, unknown>): string {
  const files = Array.isArray(data.files)
    ? (data.files as { path?: unknown; kind?: unknown }[]).filter((f) => typeof f.path === 'string')
    : [];
  const kindOf = (k: unknown) => (typeof k === 'string' ? k : String((k as { type?: unknown } | null)?.type ?? ''));
  const changed = files.length
    ? `\n  files: ${files.map((f) => `${String(f.path)}${kindOf(f.kind) ? ` (${kindOf(f.kind)})` : ''}`).join(', ')}`
    : '';
  const output = typeof data.output === 'string' ? data.output.trimEnd() : '';
  const told = output ? `\n  output: ${tail(output, maxToolOutputChars).replace(/\n/g, '\n    ')}` : '';
  return changed + told;
}

function body(item: PortableItem): string {
  const steps = Array.isArray(item.data.steps) ? (item.data.steps as { text?: unknown; status?: unknown }[]) : [];
  const stepText = steps.map((s) => `\n  - [${String(s.status ?? '')}] ${String(s.text ?? '')}`).join('');
  const status = item.kind === 'user_message' || item.kind === 'assistant_message' ? '' : ` (${item.status})`;
  const outcome = item.kind === 'tool_call' ? toolOutcome(item.data) : '';
  return `${item.text}${status}${stepText}${outcome}`;
}

function block(item: PortableItem, maxItemChars: number): string {
  const prefix = `[run ${item.runOrdinal}] ${labels[item.kind]}: `;
  return prefix + clip(body(item), Math.max(0, maxItemChars - prefix.length));
}

function header(strategy: PortableMode['type'], covered: number[], omitted: number, scopeOf?: string): string {
  const span =
    covered.length === 0
      ? 'no earlier runs'
      : covered.length === 1
        ? `run ${covered[0]}`
        : `runs ${covered[0]}-${covered.at(-1)}`;
  const scope = scopeOf ?? (strategy === 'full' ? 'the conversation so far' : 'what happened since you last took part');
  const left = omitted > 0 ? ` ${omitted} older item(s) were left out to keep it short.` : '';
  return `[Context from Baton: ${scope} (${span}), rebuilt from Baton's own record of this thread.${left}]`;
}

export function buildPortableContext(items: readonly PortableItem[], options: PortableContextOptions): PortableContext {
  const maxChars = Math.max(minPortableChars, Math.floor(options.maxChars));
  const since = options.mode.type === 'delta' ? options.mode.sinceRunOrdinal : 0;
  const told = items.filter((i) => !i.rolledBack && i.runOrdinal > since && labels[i.kind] !== undefined);
  const budget = maxChars - headerReserve;
  const maxItemChars = Math.floor(budget / 2);
  // The newest user message is always told: it is what the provider must answer from.
  const pinned = told.map((i) => i.kind).lastIndexOf('user_message');
  const blocks = told.map((i) => block(i, maxItemChars));
  let used = pinned >= 0 ? blocks[pinned]!.length + 1 : 0;
  const kept = new Set<number>(pinned >= 0 ? [pinned] : []);
  // The newest first, without holes: once one does not fit, everything older is left out.
  for (let i = told.length - 1; i >= 0; i--) {
    if (i === pinned) continue;
    if (used + blocks[i]!.length + 1 > budget) break;
    kept.add(i);
    used += blocks[i]!.length + 1;
  }
  const chosen = [...kept].sort((a, b) => a - b);
  const covered = [...new Set(chosen.map((i) => told[i]!.runOrdinal))].sort((a, b) => a - b);
  const omittedItems = told.length - chosen.length;
  const text = [header(options.mode.type, covered, omittedItems, options.scope), ...chosen.map((i) => blocks[i]!)].join(
    '\n',
  );
  return { strategy: options.mode.type, text, coveredRunOrdinals: covered, omittedItems, chars: text.length };
}
