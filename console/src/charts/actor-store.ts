import { ActorsResult, type ActorState } from '../../../src/server/actor-states.js';
import { chartOfKind } from './machines.js';
import { leafPaths, takenPath, type StateValue, type TakenPath } from './transition.js';

/** The part of the typed client this needs (the console's BatonClient). */
export interface QueryClient {
  query(
    q: Record<string, unknown>,
  ): Promise<{ ok: boolean; result?: unknown; error?: { code: string; message: string } }>;
}

/** One state an actor was seen in, and how it got there from the one before. */
export interface Sighting {
  state: StateValue;
  /** Its leaf path (`live.running.working`). */
  leaf: string;
  /** The last committed sequence when it was read. */
  sequence: number;
  taken: TakenPath | null;
}

export interface TrackedActor extends ActorState {
  /** Every state it was seen in since the page opened, oldest first. */
  sightings: Sighting[];
}

const sameState = (a: StateValue, b: StateValue) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A thread's actors and their states (the `actors` query), read again whenever the thread's
 * events move past the last read: only the rows written since come back. One read at a
 * time; events during a read make one more. Each change of state is kept with the
 * transition that explains it.
 */
export class ActorStore {
  readonly actors = new Map<string, TrackedActor>();
  /** The sequence of the last read (-1 before the first). */
  sequence = -1;
  error: string | null = null;
  private reading = false;
  private again = false;
  private closed = false;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly client: QueryClient,
    readonly threadId: string,
  ) {}

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
  }

  /** An event of the thread was committed at `sequence`: read again if it is past the last read. */
  committed(sequence: number): void {
    if (sequence > this.sequence) void this.refresh();
  }

  async refresh(): Promise<void> {
    if (this.reading) return void (this.again = true);
    this.reading = true;
    try {
      do {
        this.again = false;
        await this.readOnce();
      } while (this.again && !this.closed);
    } finally {
      this.reading = false;
    }
  }

  private async readOnce(): Promise<void> {
    const q = {
      type: 'actors',
      threadId: this.threadId,
      ...(this.sequence >= 0 ? { sinceSequence: this.sequence } : {}),
    };
    let answer: Awaited<ReturnType<QueryClient['query']>>;
    try {
      answer = await this.client.query(q);
    } catch (error) {
      return this.fail(`Could not read the actors: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (this.closed) return;
    if (!answer.ok && answer.error?.code === 'not_found') return this.fail(noThread(this.threadId));
    if (!answer.ok) return this.fail(`Baton refused the actors query: ${answer.error?.code}: ${answer.error?.message}`);
    const parsed = ActorsResult.safeParse(answer.result);
    if (!parsed.success) return this.fail('Baton answered the actors query with something the console cannot read');
    this.error = null;
    for (const actor of parsed.data.actors) this.merge(actor, parsed.data.sequence);
    this.sequence = parsed.data.sequence;
    this.emit();
  }

  private merge(actor: ActorState, sequence: number): void {
    const known = this.actors.get(actor.id);
    const sightings = known?.sightings ?? [];
    const before = sightings.at(-1);
    if (!before || !sameState(before.state, actor.state)) {
      const chart = chartOfKind(actor.kind);
      sightings.push({
        state: actor.state,
        leaf: leafPaths(actor.state)[0] ?? '',
        sequence,
        taken: before && chart ? takenPath(chart, before.state, actor.state) : null,
      });
    }
    this.actors.set(actor.id, { ...actor, sightings });
  }

  private fail(message: string): void {
    this.error = message;
    this.emit();
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}

/** What the charts say of a thread Baton does not have (its queries are refused `not_found`). */
export const noThread = (threadId: string): string => `Baton has no thread ${threadId}.`;
