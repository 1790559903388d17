import { z } from 'zod';
import type { CommandAck } from '../domain/command-ack.js';
import { parseOrThrow, BatonError } from '../domain/errors.js';
import { MessageId, RunId, ThreadId } from '../domain/ids.js';
import { ThreadShell } from '../domain/projections.js';

/**
 * The parts of command results and query answers the CLI reads, parsed where they enter
 * (the wire gives plain JSON), so ids arrive branded and a server that answers otherwise
 * is one clear error.
 */
export const ThreadCreated = z.object({ threadId: ThreadId });
export const MessageSent = z.object({
  runId: RunId,
  messageId: MessageId,
  dispatched: z.enum(['started', 'queued', 'steered']),
});
export const RolledBack = z.object({ changedPaths: z.array(z.string()) });
export const ThreadsSnapshot = z.object({ snapshot: z.object({ threads: z.array(ThreadShell) }) });

/** The result of an accepted command, parsed with `schema`; a refusal is thrown as the server's typed error. */
export function resultOf<S extends z.ZodType>(ack: CommandAck, schema: S, what: string): z.infer<S> {
  if (!ack.ok) throw new BatonError(ack.error.code, ack.error.message);
  return parseOrThrow(schema, ack.result, 'internal', `the result of ${what}`);
}

/** An accepted command whose result the CLI does not read; a refusal is thrown as the server's typed error. */
export function accepted(ack: CommandAck): void {
  if (!ack.ok) throw new BatonError(ack.error.code, ack.error.message);
}
