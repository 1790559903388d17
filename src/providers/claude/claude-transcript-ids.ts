import { entryWith, SentIdPlaceholders } from '../transport/sent-id-placeholders.js';
import { substitute, type TranscriptEntry, type Vars } from '../transport/transcript.js';

/**
 * Ids Baton's side makes up afresh on every run: the SDK's control `request_id`s, the
 * `uuid`s Baton gives its user messages, and the session ids Baton starts an agent with
 * (`--session-id`, `--resume`, `--resume-session-at` on its command line). A recording
 * writes each as a `{{sentN}}` placeholder everywhere it appears (the agent echoes them, and
 * writes them into its session files); a replay binds a placeholder to what Baton sends in its
 * place and puts that value into what the agent says after. Ids the agent made up on its own
 * (its message uuids, its `request_id`s) are kept: the replay says them again.
 */

/** The keys whose values, in a frame Baton sends, are its own fresh ids. */
const SENT_ID_KEYS = new Set(['request_id', 'uuid']);

/** The agent's command-line options whose values are ids Baton chose. */
const ARG_ID = /^--(?:resume|resume-session-at|session-id)=(.+)$/;

function strings(value: unknown, into: Set<string>): Set<string> {
  substitute(value, (s) => (into.add(s), s));
  return into;
}

/** The string values under the id keys anywhere in a frame. */
function idsIn(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => idsIn(v, into));
  else if (value && typeof value === 'object')
    for (const [key, v] of Object.entries(value)) {
      if (SENT_ID_KEYS.has(key) && typeof v === 'string' && v) into.push(v);
      else idsIn(v, into);
    }
  return into;
}

/** One recorded agent process: its command line, and what it said and was told. */
export interface RecordedProcess {
  args: string[];
  entries: TranscriptEntry[];
  /** The lines it wrote to its session files (what the agent wrote there is the agent's, not Baton's). */
  wrote?: string[];
}

const heardIn = (line: string, heard: Set<string>): void => {
  try {
    strings(JSON.parse(line), heard);
  } catch {
    // not JSON: nothing to hear
  }
};

/**
 * A scenario's recorded processes (in the order they started) with Baton's fresh ids as
 * `{{sentN}}` placeholders, numbered in order of appearance across them all: an id Baton
 * gave one process and names to the next (`--resume-session-at`) is one placeholder.
 */
export function withSentIdPlaceholders(recorded: readonly RecordedProcess[]): {
  processes: RecordedProcess[];
  /** Puts the placeholders into anything else that holds the ids (the agent's session files). */
  replace: (s: string) => string;
} {
  const sent = new SentIdPlaceholders();
  // What the agent said, in any process so far, is not Baton's: an id Baton names to a later process may be the agent's.
  const heard = new Set<string>();
  for (const process of recorded) {
    const name = (id: string) => sent.name(id, heard);
    for (const arg of process.args) {
      const id = ARG_ID.exec(arg)?.[1];
      if (id) name(id);
    }
    for (const entry of process.entries) {
      if (entry.kind === 'emit_inbound') strings(entry.frame, heard);
      if (entry.kind === 'expect_outbound') idsIn(entry.frame).forEach(name);
    }
    process.wrote?.forEach((line) => heardIn(line, heard));
  }
  const replace = sent.replacer();
  const entry = entryWith(replace);
  return {
    processes: recorded.map((p) => ({ args: p.args.map(replace), entries: p.entries.map(entry) })),
    replace,
  };
}

/** The agent's command-line options that say which session it goes on with (a replay checks them). */
export const sessionArgs = (args: readonly string[]): string[] =>
  args.filter((a) => ARG_ID.test(a) || a === '--fork-session');
