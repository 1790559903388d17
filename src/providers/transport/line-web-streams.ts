import { LineSplitter, type LineChannel } from './line-channel.js';

/** A line channel as the pair of NDJSON byte streams a Web-streams client (the ACP SDK's `ndJsonStream`) reads and writes. */
export interface LineByteStreams {
  /** What the client writes: split into lines, each sent on the channel. */
  output: WritableStream<Uint8Array>;
  /** What the client reads: the channel's lines, each ended by a newline; it ends when the channel closes. */
  input: ReadableStream<Uint8Array>;
}

/**
 * Puts a LineChannel (a process's stdio, a recording of it, or a replay in its place) under a
 * client that speaks Web streams. A write resolves once its lines are handed to the channel
 * (its backpressure is the client's); the channel's close ends the input, after every line it
 * said. Closing the output leaves the channel open: ending the peer is its owner's to decide.
 */
export function lineByteStreams(channel: LineChannel): LineByteStreams {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const pending: Promise<void>[] = [];
  const splitter = new LineSplitter((line) => {
    if (line.trim()) pending.push(channel.send(line));
  });
  const output = new WritableStream<Uint8Array>({
    async write(chunk) {
      splitter.push(decoder.decode(chunk, { stream: true }));
      await Promise.all(pending.splice(0));
    },
    async close() {
      splitter.flush();
      await Promise.all(pending.splice(0));
    },
  });
  let cancelled = false;
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      channel.onLine((line) => {
        if (!cancelled) controller.enqueue(encoder.encode(`${line}\n`));
      });
      channel.onClose(() => {
        if (cancelled) return;
        cancelled = true;
        controller.close();
      });
    },
    cancel() {
      cancelled = true;
    },
  });
  return { output, input };
}
