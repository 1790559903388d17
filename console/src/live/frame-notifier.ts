/**
 * Change notification for a live store the views read: `changed()` bumps `version` at once,
 * and listeners hear of it at most once a frame, however fast the changes come.
 */
export class FrameNotifier {
  /** Bumped on every change, for views to re-render. */
  version = 0;
  private frame: number | null = null;
  private readonly listeners = new Set<() => void>();

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected changed(): void {
    this.version += 1;
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      for (const l of this.listeners) l();
    });
  }

  /** Forgets the listeners and any change not yet told (the store is closing). */
  protected stopNotifying(): void {
    this.listeners.clear();
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
  }
}
