import { Decoder, Encoder, PacketType } from 'socket.io-parser';

const isPlainObject = (v: unknown): boolean => Object.prototype.toString.call(v) === '[object Object]';

/**
 * A Socket.IO CONNECT packet (`0[/nsp,]{auth}`) whose auth is not an object (a string, an
 * array, broken JSON) rewritten to carry an empty auth; every other packet unchanged.
 */
export function withObjectAuth(packet: string): string {
  if (packet[0] !== String(PacketType.CONNECT)) return packet;
  const rest = packet.slice(1);
  const comma = rest.startsWith('/') ? rest.indexOf(',') : -1;
  if (rest.startsWith('/') && comma === -1) return packet;
  const nsp = rest.slice(0, comma + 1);
  const data = rest.slice(comma + 1);
  if (data === '') return packet;
  try {
    if (isPlainObject(JSON.parse(data))) return packet;
  } catch {
    // Not JSON: an auth that is no object either.
  }
  return `${PacketType.CONNECT}${nsp}{}`;
}

/**
 * Socket.IO's parser, but a CONNECT whose auth is not an object is read as one without a
 * token: it fails the token check and the client gets a typed `unauthorized`
 * connect_error, where the stock parser would close the connection without a word.
 */
class TolerantDecoder extends Decoder {
  override add(chunk: unknown): void {
    super.add(typeof chunk === 'string' ? withObjectAuth(chunk) : chunk);
  }
}

export const connectParser = { Encoder, Decoder: TolerantDecoder };
