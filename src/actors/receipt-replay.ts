import type { Receipt } from '../domain/receipts.js';
import type { StepOutcome } from './step-outcome.js';

/** What identifies a command beside its commandId: its type, and the thread it names (null: Baton picks one). */
export interface CommandIdentity {
  commandType: string;
  threadId: string | null;
}

/**
 * A commandId names one command. Sent again, the same command gets its stored receipt; a
 * different command (another type, or another thread it names) that reuses the commandId
 * is a typed conflict, never the first command's answer, and writes nothing.
 */
export function replayReceipt<T>(receipt: Receipt, command: CommandIdentity): StepOutcome<T> {
  const usedBy =
    receipt.commandType !== command.commandType
      ? `a ${receipt.commandType} command`
      : command.threadId !== null && receipt.threadId !== command.threadId
        ? `a ${receipt.commandType} command on thread ${receipt.threadId}`
        : null;
  if (usedBy) {
    return {
      ok: false,
      error: {
        code: 'conflict',
        message: `commandId ${receipt.commandId} was already used by ${usedBy}: a new command needs a new commandId`,
        details: { commandId: receipt.commandId, commandType: receipt.commandType, threadId: receipt.threadId },
      },
      lastSequence: receipt.sequence,
    };
  }
  return receipt.ok
    ? { ok: true, result: receipt.result as T, lastSequence: receipt.sequence, events: [], duplicate: receipt }
    : { ok: false, error: receipt.error, lastSequence: receipt.sequence };
}
