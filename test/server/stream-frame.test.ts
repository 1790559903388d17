import { describe, expect, it } from 'vitest';
import { Decoder, Encoder, PacketType, type Packet } from 'socket.io-parser';
import { encodeSubscriptionId, frameCache, streamFrame } from '../../src/server/stream-frame.js';

const event = {
  eventId: 'evt_1',
  type: 'message.delta',
  threadId: 'thr_1',
  payload: { threadId: 'thr_1', messageId: 'msg_1', delta: 'quote " backslash \\ newline \n unicode \u2028 é' },
  commandId: null,
  causationId: null,
  sequence: 42,
  at: 1_700_000_000_000,
};

/** What Socket.IO itself writes for `socket.emit('stream', message)` on `namespace`. */
const emitted = (namespace: string, message: unknown): string => {
  const [packet] = new Encoder().encode({ type: PacketType.EVENT, nsp: namespace, data: ['stream', message] });
  return String(packet);
};

describe('a stream frame', () => {
  it('is the packet socket.emit would write, for each subscription id', () => {
    const frame = streamFrame('/', event);
    for (const id of ['sub_1', 'sub_"odd"\\id']) {
      expect(frame(encodeSubscriptionId(id))).toBe(
        emitted('/', { subscriptionId: id, sequence: event.sequence, event }),
      );
    }
  });

  it('names a namespace other than the main one, as Socket.IO does', () => {
    expect(streamFrame('/admin', event)(encodeSubscriptionId('sub_7'))).toBe(
      emitted('/admin', { subscriptionId: 'sub_7', sequence: 42, event }),
    );
  });

  it('decodes on the client to the message the subscriber expects', () => {
    const decoder = new Decoder();
    const decoded = new Promise<unknown>((resolve) => decoder.on('decoded', (packet: Packet) => resolve(packet.data)));
    decoder.add(streamFrame('/', event)(encodeSubscriptionId('sub_3')));
    return expect(decoded).resolves.toEqual(['stream', { subscriptionId: 'sub_3', sequence: 42, event }]);
  });

  it('is encoded once per event however many subscribers take it', () => {
    const frameOf = frameCache('/');
    expect(frameOf(event)).toBe(frameOf(event));
    expect(frameOf({ ...event, sequence: 43 })).not.toBe(frameOf(event));
  });
});
