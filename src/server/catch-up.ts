import type { DomainEvent } from '../domain/events.js';
import type { StreamRequest } from '../domain/stream-request.js';
import type { EventLog } from '../persistence/event-log.js';

/** Events a catch-up reads from the log at a time (fewer if the server cuts off clients sooner). */
export const CATCH_UP_PAGE = 250;

/** What a catch-up needs of the subscription it serves and of the socket under it. */
export interface CatchUpTarget {
  req: StreamRequest;
  /** The last sequence the subscription has seen; `deliver` moves it on. */
  readonly lastDelivered: number;
  /** Sends the subscription the events past its last one that its stream carries. */
  deliver(events: readonly DomainEvent[]): void;
  /** Still subscribed, on a connected socket. */
  active(): boolean;
  /** Packets the engine holds for this socket, not yet written. */
  buffered(): number;
  /** Calls `next` once the engine has written what it held. */
  onDrain(next: () => void): void;
  /** Caught up: from now on the fan-out delivers to it, past `sequence`. */
  live(sequence: number): void;
}

/** The events after `after` that `req`'s stream may carry, `size` at most: by the thread index when the stream has a thread. */
function readPage(log: EventLog, req: StreamRequest, after: number, size: number): DomainEvent[] {
  return 'threadId' in req ? log.readThreadAfter(req.threadId, after, size) : log.readAfter(after, size);
}

/**
 * Sends a resumed subscription (`afterSequence`) the events it missed, read from the log a
 * page at a time. The event loop is free between pages, so a client resuming from far
 * back does not stall every other client. Measured over a 200,000-event log, a client in
 * another process caught up in about 2.5 s either way; in one synchronous pass a command
 * sent meanwhile waited all of it, paged 155 were acked meanwhile (p50 3.9 ms, slowest
 * 26 ms). The next page is written only once the engine holds nothing for the client: one
 * slow to read holds at most a page or two in memory, and with pages no larger than
 * `maxBuffered` it is not mistaken for a stalled subscriber.
 *
 * While it runs the fan-out passes the subscription by: the log holds every committed
 * event, so nothing is lost. The read that finds no more and the switch to live delivery
 * happen in one synchronous stretch, so no commit falls between them, and no event is
 * sent twice (the fan-out skips what the log already gave).
 */
export function catchUp(log: EventLog, target: CatchUpTarget, maxBuffered: number): void {
  const size = Math.max(1, Math.min(CATCH_UP_PAGE, maxBuffered));
  const step = (): void => {
    if (!target.active()) return;
    const page = readPage(log, target.req, target.lastDelivered, size);
    if (page.length === 0) return target.live(log.lastSequence());
    target.deliver(page);
    // Never the next page straight from the drain: while the kernel takes every write at
    // once, the engine drains on the next tick, and pages chained that way never yield.
    const next = () => setImmediate(step);
    if (target.buffered() > 0) target.onDrain(next);
    else next();
  };
  step();
}
