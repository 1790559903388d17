/**
 * The commands being dispatched, by commandId. A command that acts outside the store before
 * its step has its receipt looked up by the dispatcher; its step looks again only when
 * another command with the same id overlapped it (a client's retry racing the first send),
 * since only that one could have answered it meanwhile. Every duplicate, looked up or not,
 * is caught by the commit.
 */
export class CommandsInFlight {
  private readonly counts = new Map<string, number>();
  private readonly contestedIds = new Set<string>();

  enter(commandId: string): void {
    const count = (this.counts.get(commandId) ?? 0) + 1;
    this.counts.set(commandId, count);
    if (count > 1) this.contestedIds.add(commandId);
  }

  leave(commandId: string): void {
    const count = (this.counts.get(commandId) ?? 1) - 1;
    if (count > 0) return void this.counts.set(commandId, count);
    this.counts.delete(commandId);
    this.contestedIds.delete(commandId);
  }

  /** True when another dispatch with this id has overlapped this one. */
  isContested(commandId: string): boolean {
    return this.contestedIds.has(commandId);
  }

  /** `isContested` for one commandId, asked later (a step's `mayBeAnswered`). */
  contested(commandId: string): () => boolean {
    return () => this.isContested(commandId);
  }
}
