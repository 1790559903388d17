import type { ErrorInfo } from './errors.js';

/**
 * The answer to every command, on the wire and in process: the committed sequence (in the
 * event log `logId` names, as every answer that gives a sequence says) and the command's
 * result, or a typed refusal. `commandId` is null only when the command was too malformed
 * to carry one. `R` narrows the result for callers that know the command.
 */
export type CommandAck<R = Record<string, unknown>> =
  | { ok: true; commandId: string; sequence: number; logId: string; result: R }
  | { ok: false; commandId: string | null; error: ErrorInfo };
