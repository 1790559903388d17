import { substitute, type TranscriptEntry } from './transcript.js';

/**
 * How a recording writes the ids Baton makes up afresh on every run: each one Baton sent, and
 * the agent had not said first, becomes a `{{sentN}}` placeholder (numbered in order of first
 * appearance) everywhere it appears. Which ids those are is the provider's to say
 * (claude-transcript-ids.ts, acp-transcript-ids.ts); a replay binds the placeholders back
 * (replay-matching.ts).
 */
export class SentIdPlaceholders {
  private readonly names = new Map<string, string>();

  /** Gives `id` the next placeholder, unless the agent said it first or it has one already. */
  name(id: string, heard: ReadonlySet<string>): void {
    if (!heard.has(id) && !this.names.has(id)) this.names.set(id, `{{sent${this.names.size + 1}}}`);
  }

  /** Puts the placeholders of the ids named so far into a string. */
  replacer(): (s: string) => string {
    // Longest first, so that no id is cut by a shorter one inside it.
    const ids = [...this.names].sort((a, b) => b[0].length - a[0].length);
    return (s) => ids.reduce((acc, [id, placeholder]) => acc.split(id).join(placeholder), s);
  }
}

/** A transcript entry with `replace` applied to every string of its frame (or raw line). */
export const entryWith =
  (replace: (s: string) => string) =>
  (e: TranscriptEntry): TranscriptEntry => {
    if (e.kind === 'expect_outbound') return { ...e, frame: substitute(e.frame, replace) };
    if (e.kind === 'emit_inbound')
      return {
        ...e,
        ...(e.frame !== undefined ? { frame: substitute(e.frame, replace) } : {}),
        ...(e.raw !== undefined ? { raw: replace(e.raw) } : {}),
      };
    return e;
  };
