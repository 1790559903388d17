/**
 * A re-armable deadline: `onExpiry` runs once `ms` pass after the last `arm()`, unless it
 * is disarmed first. The adapters' turn watchdogs re-arm it on every frame of a streaming
 * turn, so re-arming only moves the due time; the one timer, when it fires early, waits out
 * what is left. It never keeps the process alive by itself.
 */
export class Deadline {
  private timer: NodeJS.Timeout | null = null;
  private due = 0;

  constructor(
    readonly ms: number,
    private readonly onExpiry: () => void,
  ) {}

  get armed(): boolean {
    return this.timer !== null;
  }

  /** (Re)starts the wait from now. */
  arm(): void {
    this.due = Date.now() + this.ms;
    if (!this.timer) this.wait(this.ms);
  }

  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private wait(delay: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      const left = this.due - Date.now();
      if (left > 0) this.wait(left);
      else this.onExpiry();
    }, delay);
    this.timer.unref();
  }
}
