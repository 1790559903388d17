import type { StepOutcome } from './step-outcome.js';

type Job<R> = () => Promise<R>;

interface BatchItem<C> {
  route: (ctx: C) => void;
  resolve: (outcome: StepOutcome<Record<string, unknown>>) => void;
}

/** Runs a batch of routed events as one step with context `C`. */
export type BatchRunner<C> = (routes: ((ctx: C) => void)[]) => Promise<StepOutcome<Record<string, unknown>>>;

/**
 * One thread's mailbox: its steps run one at a time, in order (the per-thread lock; other
 * threads run in parallel). Provider events that arrive while it is busy share one step.
 */
export class ThreadMailbox<C> {
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private openBatch: BatchItem<C>[] | null = null;

  constructor(private readonly runBatch: BatchRunner<C>) {}

  /** True while no step is queued or running. */
  get idle(): boolean {
    return this.queued === 0;
  }

  /** Resolves when every step queued so far has finished. */
  settled(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  /** Queues a step; provider events that arrive after it must not overtake it. */
  schedule<R>(job: Job<R>): Promise<R> {
    this.openBatch = null;
    return this.enqueue(job);
  }

  /**
   * Provider events that arrive while the mailbox is busy share one step: one commit, one
   * publish, however many deltas came in meanwhile. If the shared step is refused, its
   * events run again one by one in the same mailbox turn, so only the bad one is refused.
   */
  ingest(route: (ctx: C) => void): Promise<StepOutcome<Record<string, unknown>>> {
    return new Promise((resolve) => {
      if (this.openBatch) {
        this.openBatch.push({ route, resolve });
        return;
      }
      const batch: BatchItem<C>[] = [{ route, resolve }];
      this.openBatch = batch;
      void this.enqueue(async () => {
        if (this.openBatch === batch) this.openBatch = null;
        const all = await this.runBatch(batch.map((item) => item.route));
        if (all.ok || batch.length === 1) return batch.forEach((item) => item.resolve(all));
        for (const item of batch) item.resolve(await this.runBatch([item.route]));
      });
    });
  }

  private enqueue<R>(job: Job<R>): Promise<R> {
    this.queued += 1;
    const run = this.tail.then(job).finally(() => (this.queued -= 1));
    this.tail = run.catch(() => undefined);
    return run;
  }
}
