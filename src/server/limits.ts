import { BatonError } from '../domain/errors.js';

/**
 * What one Socket.IO message may weigh. A message over the transport limit closes the
 * connection (Socket.IO drops it before it is parsed and cannot answer it); one over the
 * application limit but under the transport limit is answered with a typed
 * `invalid_payload` ack, and nothing is dispatched.
 */
export const TRANSPORT_MAX_BYTES = 4 * 1024 * 1024;
export const PAYLOAD_MAX_BYTES = 1024 * 1024;

/** The size of a message's arguments as JSON (what travels, near enough). */
export function payloadBytes(args: readonly unknown[]): number {
  let bytes = 0;
  for (const arg of args) if (typeof arg !== 'function') bytes += Buffer.byteLength(JSON.stringify(arg) ?? '');
  return bytes;
}

/** The refusal for a message over the application limit, or null when it is within it. */
export function oversize(event: string, args: readonly unknown[]): BatonError | null {
  const bytes = payloadBytes(args);
  if (bytes <= PAYLOAD_MAX_BYTES) return null;
  return new BatonError('invalid_payload', `${event} is ${bytes} bytes; the limit is ${PAYLOAD_MAX_BYTES}`, {
    bytes,
    limit: PAYLOAD_MAX_BYTES,
  });
}
