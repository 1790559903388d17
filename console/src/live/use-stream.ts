import { createContext } from 'preact';
import { useContext, useEffect, useReducer, useState } from 'preact/hooks';
import type { BatonClient } from '../../../src/client/baton-client.js';
import type { LiveStream } from './live-stream.js';
import type { StreamSpec } from './stream-specs.js';
import type { Streams } from './streams.js';

/** What every view of a logged-in console can reach: the typed client and the shared streams. */
export interface ConsoleContext {
  client: BatonClient;
  streams: Streams;
}

export const ConsoleCtx = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const ctx = useContext(ConsoleCtx);
  if (!ctx) throw new Error('useConsole outside a logged-in console');
  return ctx;
}

/**
 * A live stream for as long as the view shows it (shared with other views that use the
 * same one); the view re-renders, at most once a frame, whenever the stream changes. A
 * view shows one stream all its life: a parent keys it by the stream (`key={threadId}`).
 */
export function useStream(spec: StreamSpec): LiveStream {
  const { streams } = useConsole();
  const [stream] = useState(() => streams.acquire(spec));
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const seen = stream.version;
  useEffect(() => {
    const off = stream.onChange(() => rerender(0));
    // A change between this render and now would otherwise go unseen until the next one.
    if (stream.version !== seen) rerender(0);
    return () => {
      off();
      streams.release(stream);
    };
  }, [stream]);
  return stream;
}
