import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { isDeepStrictEqual } from 'node:util';
import { ChannelBase, type LineChannel } from './line-channel.js';

/**
 * Transcripts: what a real agent process said and was told, recorded as NDJSON (a header,
 * then `expect_outbound`, `emit_inbound` with `afterMs`, `runtime_exit`, and `mcp_request`
 * for the agent's calls to Baton's MCP server). A replay stands in for the process: it checks
 * every frame Baton sends against the next expected one and answers with what the real
 * process answered.
 */
export const TranscriptHeader = z.object({
  kind: z.literal('header'),
  provider: z.string(),
  protocol: z.string(),
  version: z.string(),
  scenario: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});
export const TranscriptEntry = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('expect_outbound'), frame: z.unknown() }),
  /** `raw` replaces `frame` for lines that are not JSON (garbled or truncated frames). */
  z.object({
    kind: z.literal('emit_inbound'),
    frame: z.unknown().optional(),
    raw: z.string().optional(),
    afterMs: z.number().nonnegative().optional(),
  }),
  z.object({ kind: z.literal('runtime_exit'), reason: z.string() }),
  /**
   * An HTTP request the agent made to Baton's orchestrator MCP server, at its place among the
   * frames, and what Baton answered (mcp-exchange.ts): a replay makes it again with the
   * credential Baton gave the replayed session, and checks the answer.
   */
  z.object({
    kind: z.literal('mcp_request'),
    /** The request: its HTTP method, the headers that shape the answer (never the credential), its JSON-RPC body. */
    frame: z.object({ method: z.string(), headers: z.record(z.string(), z.string()), body: z.unknown().optional() }),
    /** The answer's status and JSON-RPC messages (an event stream's, in order). */
    response: z.object({ status: z.number().int(), messages: z.array(z.unknown()) }),
  }),
]);
export type TranscriptHeader = z.infer<typeof TranscriptHeader>;
export type TranscriptEntry = z.infer<typeof TranscriptEntry>;
export type McpRequestEntry = Extract<TranscriptEntry, { kind: 'mcp_request' }>;
/** Makes a recorded MCP request again: resolves with how Baton's answer differs from the recorded one, or null. */
export type McpCaller = (entry: McpRequestEntry, signal: AbortSignal) => Promise<string | null>;
export interface Transcript {
  header: TranscriptHeader;
  entries: TranscriptEntry[];
}

/** Values that differ from run to run (temp folders) travel as `{{name}}` placeholders. */
export type Vars = Record<string, string>;

/** Every string in a JSON value, replaced (the keys are kept). */
export function substitute(value: unknown, replace: (s: string) => string): unknown {
  if (typeof value === 'string') return replace(value);
  if (Array.isArray(value)) return value.map((v) => substitute(v, replace));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, replace)]));
  return value;
}

/** Puts `{{name}}` in place of each var's value (the longest first). */
export const withPlaceholders = (vars: Vars) => (s: string) =>
  Object.entries(vars)
    .sort((a, b) => b[1].length - a[1].length)
    .reduce((acc, [name, v]) => (v ? acc.split(v).join(`{{${name}}}`) : acc), s);
/** Puts each var's value in place of its `{{name}}`. */
export const withValues = (vars: Vars) => (s: string) =>
  Object.entries(vars).reduce((acc, [name, v]) => acc.split(`{{${name}}}`).join(v), s);

export function readTranscript(path: string): Transcript {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const [first, ...rest] = lines;
  if (!first) throw new Error(`empty transcript ${path}`);
  return {
    header: TranscriptHeader.parse(JSON.parse(first)),
    entries: rest.map((l) => TranscriptEntry.parse(JSON.parse(l))),
  };
}

export function writeTranscript(path: string, transcript: Transcript): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, [transcript.header, ...transcript.entries].map((e) => JSON.stringify(e)).join('\n') + '\n');
}

/** Plays a transcript back in place of the process. */
export class ReplayChannel extends ChannelBase {
  readonly mismatches: string[] = [];
  private position = 0;
  private readonly outbox: TranscriptEntry[] = [];
  private draining = false;
  private readonly toValues: (s: string) => string;
  /** Makes the recorded MCP requests again (mcp-exchange.ts); without one, such an entry is a mismatch. */
  mcp: McpCaller | null = null;
  /** An MCP request queued or in flight: what the agent said after it waits for Baton's answer. */
  private awaiting: AbortController | null = null;
  /** A kill that came while an MCP request was unanswered: carried out once it is answered. */
  private terminating = false;

  constructor(
    private readonly entries: TranscriptEntry[],
    vars: Vars,
  ) {
    super();
    this.toValues = withValues(vars);
  }

  /** True once every entry was played and every expected frame was sent. */
  get finished(): boolean {
    return this.position >= this.entries.length && this.outbox.length === 0 && !this.awaiting;
  }

  get remaining(): TranscriptEntry[] {
    return [...this.outbox, ...this.entries.slice(this.position)];
  }

  /**
   * Checks a frame Baton sends against the next expected one. Inbound frames recorded
   * before it were not caused by it (the process said them on its own time), so they are
   * emitted first, whether or not Baton happened to wait for them.
   */
  send(line: string): Promise<void> {
    if (this.closedReason) return Promise.reject(new Error(`replay closed: ${this.closedReason}`));
    this.queueInbound();
    const entry = this.entries[this.position];
    const sent = JSON.parse(line) as unknown;
    if (!entry || entry.kind !== 'expect_outbound') {
      this.mismatches.push(`unexpected outbound frame ${line} (the transcript has no more frames from Baton)`);
      return Promise.resolve();
    }
    const expected = substitute(entry.frame, this.toValues);
    if (!isDeepStrictEqual(sent, expected))
      this.mismatches.push(`outbound frame differs:\n  sent     ${line}\n  expected ${JSON.stringify(expected)}`);
    this.position += 1;
    this.queueInbound();
    return Promise.resolve();
  }

  /**
   * Moves the inbound entries up to the next expected outbound frame into the emit queue.
   * A recorded exit waits for `terminate()`: in a recording the process dies because the
   * scenario killed it, so the replay lets it die when the scenario does.
   */
  private queueInbound(): void {
    for (
      let entry = this.entries[this.position];
      !this.awaiting && (entry?.kind === 'emit_inbound' || entry?.kind === 'mcp_request');
      entry = this.entries[this.position]
    ) {
      this.outbox.push(entry);
      this.position += 1;
      if (entry.kind === 'mcp_request') this.awaiting = new AbortController();
    }
    if (!this.draining) this.drain();
  }

  /** Makes the agent's MCP request again (once what it said before is said), then plays on. */
  private async answer(entry: McpRequestEntry, calling: AbortController): Promise<void> {
    const difference = this.mcp
      ? await this.mcp(entry, calling.signal).catch(
          (error: unknown) => `the MCP request failed: ${error instanceof Error ? error.message : String(error)}`,
        )
      : 'the transcript has an MCP request and this replay makes none';
    if (this.closedReason) return;
    if (difference) this.mismatches.push(difference);
    this.awaiting = null;
    this.draining = false;
    this.queueInbound();
    if (this.terminating) {
      this.terminating = false;
      this.terminate();
    }
  }

  /** The scenario kills the process: what it said before dying is played, then its exit. */
  terminate(): void {
    this.queueInbound();
    if (this.awaiting) {
      this.terminating = true;
      return;
    }
    const exit = this.entries[this.position];
    if (exit?.kind === 'runtime_exit') {
      this.outbox.push(exit);
      this.position += 1;
    } else {
      this.outbox.push({ kind: 'runtime_exit', reason: 'killed by SIGKILL' });
    }
    if (!this.draining) this.drain();
  }

  /** Emits queued inbound entries one per turn of the event loop, in order. */
  private drain(): void {
    const entry = this.outbox.shift();
    if (!entry) {
      this.draining = false;
      return;
    }
    this.draining = true;
    setImmediate(() => {
      if (this.closedReason) return;
      if (entry.kind === 'runtime_exit') return this.finish(entry.reason);
      if (entry.kind === 'mcp_request') return void this.answer(entry, this.awaiting!);
      if (entry.kind === 'emit_inbound') {
        const line = entry.raw ?? JSON.stringify(substitute(entry.frame, this.toValues));
        this.emitLine(line);
      }
      this.drain();
    });
  }

  close(): void {
    this.awaiting?.abort();
    this.finish('closed by Baton');
  }
}

/** Wraps a real channel and writes down both directions as transcript entries. */
export class RecordingChannel implements LineChannel {
  readonly entries: TranscriptEntry[] = [];
  private last = Date.now();
  private readonly toPlaceholders: (s: string) => string;

  constructor(
    private readonly inner: LineChannel,
    vars: Vars,
  ) {
    this.toPlaceholders = withPlaceholders(vars);
  }

  get pid(): number | undefined {
    return (this.inner as { child?: { pid?: number } }).child?.pid;
  }

  private since(): number {
    const now = Date.now();
    const ms = now - this.last;
    this.last = now;
    return ms;
  }

  send(line: string): Promise<void> {
    this.since();
    this.entries.push({ kind: 'expect_outbound', frame: substitute(JSON.parse(line), this.toPlaceholders) });
    return this.inner.send(line);
  }

  onLine(listener: (line: string) => void): void {
    this.inner.onLine((line) => {
      if (line.trim()) {
        let frame: unknown;
        try {
          frame = substitute(JSON.parse(line), this.toPlaceholders);
          this.entries.push({ kind: 'emit_inbound', frame, afterMs: this.since() });
        } catch {
          this.entries.push({ kind: 'emit_inbound', raw: this.toPlaceholders(line), afterMs: this.since() });
        }
      }
      listener(line);
    });
  }

  onClose(listener: (reason: string) => void): void {
    this.inner.onClose((reason) => {
      if (!this.entries.some((e) => e.kind === 'runtime_exit')) this.entries.push({ kind: 'runtime_exit', reason });
      listener(reason);
    });
  }

  close(): void {
    this.inner.close();
  }
}
