import type { BatonClient } from '../../../src/client/baton-client.js';
import { LiveStream } from './live-stream.js';
import type { StreamSpec } from './stream-specs.js';

/** A short hash of the token: kept state is per Baton (another data dir on this port has another token). */
function namespaceOf(token: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

interface Held {
  stream: LiveStream;
  users: number;
}

/**
 * The open streams of one connection, shared by the views that show them (a stream stays
 * open while any view uses it), each kept for a reload when the page goes away.
 */
export class Streams {
  private readonly held = new Map<string, Held>();
  private readonly namespace: string;

  constructor(
    private readonly client: BatonClient,
    token: string,
  ) {
    this.namespace = namespaceOf(token);
    addEventListener('pagehide', this.saveAll);
  }

  acquire(spec: StreamSpec): LiveStream {
    const held = this.held.get(spec.key);
    if (held) {
      held.users += 1;
      return held.stream;
    }
    const stream = new LiveStream(spec, `baton.stream.${this.namespace}.${spec.key}`);
    this.held.set(spec.key, { stream, users: 1 });
    void stream.open(this.client);
    return stream;
  }

  release(stream: LiveStream): void {
    const held = this.held.get(stream.spec.key);
    if (!held || held.stream !== stream || --held.users > 0) return;
    this.held.delete(stream.spec.key);
    stream.close();
  }

  closeAll(): void {
    removeEventListener('pagehide', this.saveAll);
    for (const { stream } of this.held.values()) stream.close();
    this.held.clear();
  }

  private readonly saveAll = (): void => {
    for (const { stream } of this.held.values()) stream.save();
  };
}
