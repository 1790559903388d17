/**
 * A re-armable deadline: `onExpiry` runs once `ms` pass after the last `arm()`, unless it
 * is disarmed first. The adapter's turn watchdog and its interrupt escalation use it; it
 * never keeps the process alive by itself.
 */
export class Deadline {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly ms: number,
    private readonly onExpiry: () => void,
  ) {}

  get armed(): boolean {
    return this.timer !== null;
  }

  /** (Re)starts the wait from now. */
  arm(): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.onExpiry();
    }, this.ms);
    this.timer.unref();
  }

  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
