import { useEffect, useState } from 'preact/hooks';
import { z } from 'zod';
import type { BatonClient, ClientSubscription } from '../../../src/client/baton-client.js';
import { ThreadId } from '../../../src/domain/ids.js';
import { ActorStore, noThread } from './actor-store.js';
import { eventSubject, eventSummary } from './event-subject.js';
import { FrameNotifier } from '../live/frame-notifier.js';

export interface HistoryEntry {
  sequence: number;
  type: string;
  at: number;
  summary: string;
}

/** The newest entries an actor's history keeps (a command's output can be thousands of events). */
const historyLimit = 300;
const pageSize = 2_000;

type Event = { type: string; threadId: string; payload: unknown; at: number };
const EventsPage = z.object({
  events: z.array(
    z.object({
      sequence: z.number().int(),
      type: z.string(),
      threadId: z.string(),
      payload: z.unknown(),
      at: z.number(),
    }),
  ),
});

/**
 * A thread's actors, live: their states (the `actors` query, read again as the thread's
 * events arrive) and each one's event history: the thread's events so far, read in pages
 * (the `events` query reads one thread's by its index), then the thread stream after the
 * last of them (each later event once, across reconnects).
 */
export class ThreadActors extends FrameNotifier {
  readonly store: ActorStore;
  readonly history = new Map<string, HistoryEntry[]>();
  error: string | null = null;
  private subscription: ClientSubscription | null = null;
  private closed = false;

  constructor(
    private readonly client: BatonClient,
    threadId: string,
  ) {
    super();
    this.store = new ActorStore(client, threadId);
    this.store.onChange(() => this.changed());
  }

  async open(): Promise<void> {
    void this.store.refresh();
    try {
      const threadId = ThreadId.parse(this.store.threadId);
      let cursor = 0;
      for (;;) {
        const answer = await this.client.query({ type: 'events', threadId, afterSequence: cursor, limit: pageSize });
        if (this.closed) return;
        if (!answer.ok && answer.error?.code === 'not_found') return this.missing();
        if (!answer.ok) throw new Error(`${answer.error?.code}: ${answer.error?.message}`);
        const { events } = EventsPage.parse(answer.result);
        for (const e of events) this.record(e, e.sequence);
        cursor = events.at(-1)?.sequence ?? cursor;
        this.changed();
        if (events.length < pageSize) break;
      }
      const { subscription } = await this.client.subscribe(
        { stream: 'thread', threadId, afterSequence: cursor },
        (e, s) => {
          this.record(e, s);
          this.store.committed(s);
          this.changed();
        },
        (error) => {
          this.error = `Stopped following the thread when Baton came back (${error.message}); reload the page`;
          this.changed();
        },
      );
      if (this.closed) return void subscription.close();
      this.subscription = subscription;
    } catch (error) {
      this.error = `Could not follow the thread: ${error instanceof Error ? error.message : String(error)}`;
      this.changed();
    }
  }

  /** Baton does not have the thread: nothing to follow. */
  private missing(): void {
    this.error = noThread(this.store.threadId);
    this.changed();
  }

  close(): void {
    this.closed = true;
    this.store.close();
    void this.subscription?.close();
    this.stopNotifying();
  }

  private record(event: Event, sequence: number): void {
    const subject = eventSubject(event);
    if (!subject) return;
    const list = this.history.get(subject) ?? [];
    list.push({ sequence, type: event.type, at: event.at, summary: eventSummary(event) });
    if (list.length > historyLimit) list.splice(0, list.length - historyLimit);
    this.history.set(subject, list);
  }
}

/** Follows a thread's actors while the view is shown (null until the first render is done). */
export function useThreadActors(client: BatonClient, threadId: string): ThreadActors | null {
  const [actors, setActors] = useState<ThreadActors | null>(null);
  const [, setVersion] = useState(0);
  useEffect(() => {
    const live = new ThreadActors(client, threadId);
    setActors(live);
    const stop = live.onChange(() => setVersion(live.version));
    void live.open();
    return () => {
      stop();
      live.close();
    };
  }, [client, threadId]);
  return actors;
}
