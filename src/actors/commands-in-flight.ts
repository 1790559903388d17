/**
 * The commands being dispatched, by commandId. The dispatcher looks a command's receipt up
 * before queueing it; the step looks again only when another command with the same id
 * overlapped it (a client's retry racing the first send), since only that one could have
 * answered it meanwhile. A duplicate that slips past both is still caught by the commit.
 */
export class CommandsInFlight {
  private readonly counts = new Map<string, number>();
  private readonly contested = new Set<string>();

  enter(commandId: string): void {
    const count = (this.counts.get(commandId) ?? 0) + 1;
    this.counts.set(commandId, count);
    if (count > 1) this.contested.add(commandId);
  }

  leave(commandId: string): void {
    const count = (this.counts.get(commandId) ?? 1) - 1;
    if (count > 0) return void this.counts.set(commandId, count);
    this.counts.delete(commandId);
    this.contested.delete(commandId);
  }

  /** True when another dispatch with this id has overlapped this one. */
  isContested(commandId: string): boolean {
    return this.contested.has(commandId);
  }
}
