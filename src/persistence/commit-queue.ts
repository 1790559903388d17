import { validateUnit, type CommitResult, type CommitUnit, type ValidUnit } from './commit-unit.js';
import type { Store } from './store.js';

interface Pending {
  unit: ValidUnit;
  resolve: (result: CommitResult) => void;
  reject: (error: unknown) => void;
}

/**
 * The runtime's commit path. Units submitted in the same turn of the event loop (from
 * many thread actors at once) are written in one transaction (retried one unit per
 * transaction if any fails), and every promise settles only after its transaction has committed. One WAL commit
 * then carries many units, which is where a durable commit's cost lies.
 */
export class CommitQueue {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly store: Store,
    private readonly maxBatch = 1_024,
  ) {}

  /** Validates now (a bad unit is refused at once, typed) and commits with the next group. */
  submit(unit: CommitUnit): Promise<CommitResult> {
    const valid = validateUnit(unit);
    return new Promise((resolve, reject) => {
      this.pending.push({ unit: valid, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Writes everything queued so far in one transaction. */
  flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    let outcomes;
    try {
      outcomes = this.store.commitIsolated(batch.map((p) => p.unit));
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    outcomes.forEach((outcome, i) => {
      const p = batch[i]!;
      if (outcome.ok) p.resolve(outcome.result);
      else p.reject(outcome.error);
    });
  }

  get size(): number {
    return this.pending.length;
  }
}
