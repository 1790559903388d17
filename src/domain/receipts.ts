import { z } from 'zod';
import { ErrorInfo } from './errors.js';
import { CommandId, ThreadId } from './ids.js';

/**
 * A command's stored outcome. It is written in the same transaction as the command's
 * events, so a duplicate commandId can always be answered with exactly this.
 */
export const Receipt = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    commandId: CommandId,
    commandType: z.string(),
    threadId: ThreadId.nullable(),
    sequence: z.number().int().nonnegative(),
    result: z.record(z.string(), z.unknown()),
    at: z.number().int().nonnegative(),
  }),
  z.object({
    ok: z.literal(false),
    commandId: CommandId,
    commandType: z.string(),
    threadId: ThreadId.nullable(),
    sequence: z.number().int().nonnegative(),
    error: ErrorInfo,
    at: z.number().int().nonnegative(),
  }),
]);
export type Receipt = z.infer<typeof Receipt>;

/** The receipt a unit carries; the store stamps `sequence` and `at`. */
export type NewReceipt =
  | { ok: true; commandId: CommandId; commandType: string; threadId: ThreadId | null; result: Record<string, unknown> }
  | { ok: false; commandId: CommandId; commandType: string; threadId: ThreadId | null; error: ErrorInfo };
