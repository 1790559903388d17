/** What the hold needs of an event: whether a command caused it. */
export interface CausedEvent {
  readonly commandId: string | null;
}

/**
 * Holds a command's committed events back from the fan-out until the next turn of the
 * loop. The runtime reports them before the command resolves, and fanning out to every
 * subscriber first would keep the caller's ack waiting behind it. Events no command
 * caused (a provider's stream) go at once, unless something is held: whatever follows a
 * held event waits behind it, so the fan-out still sees commit order.
 */
export class AckFirst<E extends CausedEvent> {
  private held: E[] = [];
  private release: NodeJS.Immediate | null = null;

  constructor(private readonly publish: (events: E[]) => void) {}

  committed(events: E[]): void {
    if (this.held.length === 0 && events.every((e) => e.commandId === null)) return this.publish(events);
    this.held.push(...events);
    this.release ??= setImmediate(() => {
      this.release = null;
      const held = this.held;
      this.held = [];
      this.publish(held);
    });
  }

  /** What is held now, oldest first (the caller's own subscriptions get it before the ack). */
  get pending(): readonly E[] {
    return this.held;
  }

  /** Drops what is held (the server is closing). */
  close(): void {
    if (this.release) clearImmediate(this.release);
    this.release = null;
    this.held = [];
  }
}
