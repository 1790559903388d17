import { z } from 'zod';
import { ThreadId } from './ids.js';

const afterSequence = z.number().int().nonnegative().optional();

/**
 * What a subscriber asks for: one stream per projection, optionally resuming after a
 * sequence it already holds. Shared by the server (which validates it at the edge) and
 * the client (which resubscribes with it after a reconnect).
 */
export const StreamRequest = z.discriminatedUnion('stream', [
  z.object({ stream: z.literal('threads'), afterSequence }).strict(),
  z.object({ stream: z.literal('thread'), threadId: ThreadId, afterSequence }).strict(),
  z.object({ stream: z.literal('graph'), threadId: ThreadId, afterSequence }).strict(),
  z.object({ stream: z.literal('activities'), threadId: ThreadId, afterSequence }).strict(),
  z.object({ stream: z.literal('requests'), afterSequence }).strict(),
  z.object({ stream: z.literal('sessions'), afterSequence }).strict(),
]);
export type StreamRequest = z.infer<typeof StreamRequest>;
