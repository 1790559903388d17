import { z } from 'zod';
import { ThreadId } from './ids.js';

/** An event log's own name (each answer that gives a sequence gives it): a sequence is a place in one log. */
export const LogId = z.string().min(1).max(64);

/** Where a subscriber resumes: after a sequence it holds, in the log it had it from. */
const cursor = {
  afterSequence: z.number().int().nonnegative().optional(),
  logId: LogId.optional(),
};

/**
 * What a subscriber asks for: one stream per projection, optionally resuming after a
 * sequence it already holds. Shared by the server (which validates it at the edge) and
 * the client (which resubscribes with it after a reconnect).
 */
export const StreamRequest = z.discriminatedUnion('stream', [
  z.object({ stream: z.literal('threads'), ...cursor }).strict(),
  z.object({ stream: z.literal('thread'), threadId: ThreadId, ...cursor }).strict(),
  z.object({ stream: z.literal('graph'), threadId: ThreadId, ...cursor }).strict(),
  z.object({ stream: z.literal('activities'), threadId: ThreadId, ...cursor }).strict(),
  z.object({ stream: z.literal('requests'), ...cursor }).strict(),
  z.object({ stream: z.literal('sessions'), ...cursor }).strict(),
]);
export type StreamRequest = z.infer<typeof StreamRequest>;
