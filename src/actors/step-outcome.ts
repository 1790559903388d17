import type { ErrorInfo } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import type { CommandId, EventId } from '../domain/ids.js';
import type { Receipt } from '../domain/receipts.js';

/** What a step ended with: its result and the events it committed, or its typed refusal. */
export type StepOutcome<T> =
  | { ok: true; result: T; lastSequence: number; events: DomainEvent[]; duplicate?: Receipt }
  | { ok: false; error: ErrorInfo; lastSequence: number };

/** The command a step carries out, if any: its receipt is written in the step's commit. */
export interface StepOptions {
  commandId?: CommandId | null;
  commandType?: string;
  causationId?: EventId | null;
  /**
   * The thread the command names (null: Baton picks one). A stored receipt of its commandId
   * answers it only if it names the same thread; without it only the type is compared.
   */
  namedThreadId?: string | null;
  /**
   * Whether another dispatch of the command may have answered it meanwhile (they
   * overlapped); the step then looks its receipt up before it runs. Without it, the step
   * always looks. A resend that is not looked up is still caught by the commit.
   */
  mayBeAnswered?: () => boolean;
}
