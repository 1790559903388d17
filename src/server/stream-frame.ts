import { PacketType } from 'socket.io-parser';

/** A `stream` packet awaiting only the subscription id it goes to. */
export type StreamFrame = (encodedSubscriptionId: string) => string;

/** What a frame carries: a committed event (a DomainEvent; only its sequence is read here). */
export interface SequencedEvent {
  readonly sequence: number;
}

/**
 * One committed event as the Socket.IO `stream` packet each subscriber gets, encoded once
 * however many subscribers it goes to: only the subscription id differs between their
 * packets, so it is spliced in rather than the whole event re-encoded per subscriber.
 * The result is exactly what `socket.emit('stream', { subscriptionId, sequence, event })`
 * would write (a Socket.IO EVENT packet, JSON, no binary: events are plain JSON).
 */
export function streamFrame(namespace: string, event: SequencedEvent): StreamFrame {
  const head = `${PacketType.EVENT}${namespace === '/' ? '' : `${namespace},`}["stream",{"subscriptionId":`;
  const tail = `,"sequence":${event.sequence},"event":${JSON.stringify(event)}}]`;
  return (encodedSubscriptionId) => head + encodedSubscriptionId + tail;
}

/** A subscription id as it appears in a frame (JSON-encoded once, when the subscription is made). */
export const encodeSubscriptionId = (id: string): string => JSON.stringify(id);

/** Frames for the events of one publish, each encoded on first use and shared by every subscriber. */
export function frameCache(namespace: string): (event: SequencedEvent) => StreamFrame {
  const frames = new Map<SequencedEvent, StreamFrame>();
  return (event) => {
    let frame = frames.get(event);
    if (!frame) frames.set(event, (frame = streamFrame(namespace, event)));
    return frame;
  };
}
