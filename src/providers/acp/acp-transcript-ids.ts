import { entryWith, SentIdPlaceholders } from '../transport/sent-id-placeholders.js';
import type { TranscriptEntry } from '../transport/transcript.js';

/**
 * Ids Baton makes up afresh on every run and sends an ACP agent (a terminal's id is
 * `term_<uuid>`): a recording writes each uuid Baton sent, and the agent had not said first, as
 * a `{{sentN}}` placeholder everywhere it appears (the agent names the terminal back); a
 * replay binds the placeholder to what Baton sends in its place (replay-matching.ts's
 * `bindSentIds`). The agent's own ids (its session ids, tool call ids, JSON-RPC ids) are kept:
 * the replay says them again, and Baton echoes what it heard. Baton's JSON-RPC ids count from
 * 0 per connection, the same on every run.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

const uuidsIn = (value: unknown): string[] =>
  (typeof value === 'string' ? value : JSON.stringify(value ?? null)).match(UUID) ?? [];

/**
 * A scenario's recorded agent processes (in the order they started) with Baton's fresh uuids
 * as `{{sentN}}` placeholders, numbered in order of appearance across them all (an id Baton
 * gave one process and names to the next is one placeholder).
 */
export function withSentIdPlaceholders(processes: readonly TranscriptEntry[][]): TranscriptEntry[][] {
  const heard = new Set<string>();
  const sent = new SentIdPlaceholders();
  for (const entries of processes)
    for (const entry of entries) {
      if (entry.kind === 'emit_inbound') uuidsIn(entry.frame ?? entry.raw).forEach((id) => heard.add(id));
      if (entry.kind === 'expect_outbound') for (const id of uuidsIn(entry.frame)) sent.name(id, heard);
    }
  const entry = entryWith(sent.replacer());
  return processes.map((entries) => entries.map(entry));
}
