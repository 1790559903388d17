/** The session's status Codex's threads add up to. */
export type CodexSessionStatus = 'running' | 'waiting' | 'ready';

/** One `thread/status/changed`: `active` (with `waitingOn…` flags while it waits on the user) or `idle`. */
export interface ThreadStatus {
  type: string;
  activeFlags?: string[] | undefined;
}

/**
 * The session waits on the user when any of its threads does: the thread Baton runs or a
 * subagent's child thread (a child's approval holds the parent's turn as much as the
 * parent's own). Otherwise it runs or idles as the thread Baton runs says.
 */
export class CodexSessionStatusTracker {
  private readonly waiting = new Set<string>();
  private own: CodexSessionStatus | null = null;
  private said: CodexSessionStatus | null = null;

  /**
   * The status to report after this change: always for the own thread (as Codex said it),
   * for a child only when the sum changed; null when there is nothing to say.
   */
  changed(threadId: string, status: ThreadStatus, own: boolean): CodexSessionStatus | null {
    const waits = status.type === 'active' && (status.activeFlags ?? []).some((f) => f.startsWith('waitingOn'));
    if (waits) this.waiting.add(threadId);
    else this.waiting.delete(threadId);
    if (own) {
      const next = status.type === 'active' ? 'running' : status.type === 'idle' ? 'ready' : null;
      if (!next) return null;
      this.own = next;
    }
    const sum = this.waiting.size > 0 ? 'waiting' : this.own;
    if (!sum || (!own && sum === this.said)) return null;
    this.said = sum;
    return sum;
  }
}
