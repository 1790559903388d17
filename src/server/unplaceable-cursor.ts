import { BatonError } from '../domain/errors.js';
import type { StreamRequest } from '../domain/stream-request.js';

/**
 * A cursor this log cannot place: one named for another log (a data dir started afresh, or
 * another Baton on the same address), or past this log's end. Accepted, it would send events
 * the client could not place, or nothing until the log passed it.
 */
export function unplaceable(
  req: Pick<StreamRequest, 'afterSequence' | 'logId'>,
  log: { id: string; lastSequence: number },
): BatonError | null {
  if (req.logId !== undefined && req.logId !== log.id)
    return new BatonError(
      'not_found',
      `logId ${req.logId} is another Baton's event log (this one is ${log.id}): start afresh, without afterSequence or logId`,
      { logId: req.logId, thisLogId: log.id },
    );
  if (req.afterSequence === undefined || req.afterSequence <= log.lastSequence) return null;
  return new BatonError(
    'not_found',
    `afterSequence ${req.afterSequence} is past the end of this Baton's event log (${log.lastSequence}): subscribe afresh, without it`,
    { afterSequence: req.afterSequence, lastSequence: log.lastSequence },
  );
}
