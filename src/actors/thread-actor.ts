import type { Logger } from 'pino';
import type { DomainEvent } from '../domain/events.js';
import type { ThreadId } from '../domain/ids.js';
import type { Clock, IdSource } from '../domain/sources.js';
import type { CommitQueue } from '../persistence/commit-queue.js';
import type { Store } from '../persistence/store.js';
import { EntityHost } from './entity-host.js';
import type { StepContext } from './step-context.js';
import { StepExecutor } from './step-executor.js';
import type { StepOptions, StepOutcome } from './step-outcome.js';
import { ThreadMailbox } from './thread-mailbox.js';

export interface ThreadDeps {
  store: Store;
  queue: CommitQueue;
  ids: IdSource;
  clock: Clock;
  /** How long a runtime request waits for an answer before it expires; null for ever. */
  requestTtlMs: number | null;
  logger: Logger;
  publish(events: DomainEvent[]): void;
  /** Told after a commit that queued outbox effects. */
  effectsQueued(): void;
  /** Told after a commit that scheduled or cancelled durable timers. */
  timersChanged(): void;
}

const noPreparation = async (): Promise<undefined> => undefined;

/**
 * One AppThread at run time: its mailbox (one step at a time), its entity host (the actors
 * the steps load and message) and the executor that commits each step as one unit before
 * it publishes, and before the next step starts.
 */
export class ThreadActor {
  private readonly host: EntityHost;
  private readonly executor: StepExecutor;
  private readonly mailbox: ThreadMailbox<StepContext>;

  constructor(
    readonly threadId: ThreadId,
    deps: ThreadDeps,
  ) {
    this.host = new EntityHost(threadId, deps);
    this.executor = new StepExecutor(this.host, deps);
    this.mailbox = new ThreadMailbox((routes) =>
      this.executor.execute(
        noPreparation,
        (ctx) => {
          for (const route of routes) route(ctx);
          return {};
        },
        {},
      ),
    );
  }

  /** True while no step is queued or running: the runtime may passivate this thread. */
  get idle(): boolean {
    return this.mailbox.idle;
  }

  get liveEntityCount(): number {
    return this.host.liveCount;
  }

  /** Loads the thread's supervisor from its row (no-op when live); false if the thread is unknown. */
  hydrate(): boolean {
    return this.host.state({ kind: 'thread_supervisor', id: this.threadId }) !== null;
  }

  /** Resolves when every step queued so far has finished. */
  settled(): Promise<void> {
    return this.mailbox.settled();
  }

  /** Runs `work` as one step in this thread's mailbox. */
  run<T extends Record<string, unknown>>(
    work: (ctx: StepContext) => T,
    options: StepOptions = {},
  ): Promise<StepOutcome<T>> {
    return this.runPrepared(noPreparation, (ctx) => work(ctx), options);
  }

  /**
   * Like `run`, with asynchronous I/O first (restoring files for a rollback, say), inside
   * the same mailbox turn so nothing else on this thread interleaves; its result feeds
   * the step. A failure of `prepare` refuses the command like any other.
   */
  runPrepared<P, T extends Record<string, unknown>>(
    prepare: (ctx: StepContext) => Promise<P>,
    work: (ctx: StepContext, prepared: P) => T,
    options: StepOptions = {},
  ): Promise<StepOutcome<T>> {
    return this.mailbox.schedule(() => this.executor.execute(prepare, work, options));
  }

  /** A provider event's routing, batched with others that arrive while the mailbox is busy. */
  ingest(route: (ctx: StepContext) => void): Promise<StepOutcome<Record<string, unknown>>> {
    return this.mailbox.ingest(route);
  }

  /** Drops every entity actor from memory; the rows hold them. */
  passivate(): void {
    this.executor.passivate();
  }
}
