import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Transcript, TranscriptEntry } from '../../../src/providers/transport/transcript.js';

/** A scenario's transcript files: NAME.ndjson, or NAME.1.ndjson, NAME.2.ndjson... (one per agent process). */
export const transcriptFile = (scenario: string, index: number, count: number): string =>
  count === 1 ? `${scenario}.ndjson` : `${scenario}.${index + 1}.ndjson`;

/** Removes a scenario's transcripts (a new recording replaces them all, however many processes it had). */
export function removeTranscripts(outDir: string, scenario: string): void {
  if (!existsSync(outDir)) return;
  const mine = new RegExp(`^${scenario}(\\.\\d+)?\\.ndjson$`);
  for (const file of readdirSync(outDir, { withFileTypes: true }))
    if (file.isFile() && mine.test(file.name)) rmSync(join(outDir, file.name));
}

/** What every process transcript's header says of its process: its place in the run, and its thread. */
export const ProcessPlace = z.looseObject({ session: z.number().int().positive(), thread: z.string() });

/**
 * A scenario's recorded processes, in the order they started, each with its header's
 * metadata as `Meta` (ProcessPlace and the provider's own fields) parses it.
 */
export function processesOf<M extends z.output<typeof ProcessPlace>>(
  transcripts: Transcript[],
  name: string,
  Meta: z.ZodType<M>,
): { meta: M; entries: TranscriptEntry[] }[] {
  return transcripts
    .filter((t) => t.header.scenario === name)
    .map((t) => ({ meta: Meta.parse(t.header.metadata), entries: t.entries }))
    .sort((a, b) => a.meta.session - b.meta.session);
}

/** The thread's next recorded process (threads may start theirs in another order than recorded). */
export function nextRecorded<R extends { thread: string }>(
  recorded: readonly R[],
  started: R[],
  threadId: string,
  what: string,
): R {
  const next = recorded.find((r) => r.thread === threadId && !started.includes(r));
  if (!next)
    throw new Error(
      `the scenario started more ${what} for ${threadId} than were recorded (${started.length} of ${recorded.length} started)`,
    );
  started.push(next);
  return next;
}

/** What the kit reads of a replayed process: the frames Baton sent that differ, and what it still expects. */
interface Replayed {
  readonly label?: string;
  readonly mismatches: string[];
  readonly remaining: TranscriptEntry[];
}

/** Where each replay stood: the frames Baton sent that differ, and what it still expected. */
export const replayState = (replays: readonly Replayed[]): object[] =>
  replays.map((r) => ({
    ...(r.label === undefined ? {} : { process: r.label }),
    mismatches: r.mismatches,
    next: r.remaining.slice(0, 2),
  }));

/** Describes a failed scenario's replays. */
export const describeReplays = (replays: readonly Replayed[]): string =>
  `replay: ${JSON.stringify(replayState(replays), null, 1).slice(0, 4000)}`;

/**
 * After the scenario passed: every recorded process started, none saw a frame that differs,
 * and every frame Baton was to send was sent. `what` names them in the failure ("sessions").
 */
export function checkReplaysDone(replays: readonly Replayed[], recordedCount: number, what: string): void {
  // An MCP request not made again is one the replay still owed Baton, like a frame not sent.
  const unsent = replays.flatMap((r) =>
    r.remaining.filter((e) => e.kind === 'expect_outbound' || e.kind === 'mcp_request'),
  );
  if (replays.length !== recordedCount || replays.some((r) => r.mismatches.length > 0) || unsent.length > 0)
    throw new Error(
      `the replay diverged: ${replays.length} of ${recordedCount} ${what} started; ${JSON.stringify({ state: replayState(replays), unsent: unsent.slice(0, 2) }, null, 1).slice(0, 4000)}`,
    );
}
