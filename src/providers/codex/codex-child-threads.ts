import { ProviderThreadId, type NodeId, type RunId, type ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';

type Change = Extract<ProviderEvent, { type: 'subagent.thread' }>['change'];

/** The subagent node working on a child's native thread now, in its run. */
interface Holder {
  runId: RunId;
  nodeId: NodeId;
}

interface ChildThread {
  providerThreadId: ProviderThreadId;
  holder: Holder;
  /** Closed (a node that meets the native thread again makes another), or its session gone. */
  ended: boolean;
}

/**
 * Codex's child threads as Baton's provider threads (`subagent.thread`): one per child
 * conversation, made for the node that first works on it (its owner) and kept by its
 * follow-up nodes; its id comes from the normalizer's IdSource, so a replay makes the same.
 */
export class CodexChildThreads {
  /** By native thread. */
  private readonly threads = new Map<string, ChildThread>();

  /** @param knownThreadOf the provider thread an earlier session's node made for a child, if it has not ended */
  constructor(
    private readonly threadId: ThreadId,
    private readonly ids: IdSource,
    private readonly knownThreadOf: (nativeThreadRef: string) => string | null = () => null,
  ) {}

  /**
   * `holder` works on `nativeThreadId` now: its provider thread, and the event that binds
   * it if this session had not met it (a child an earlier session met goes on in its own).
   */
  bind(nativeThreadId: string, holder: Holder): { providerThreadId: ProviderThreadId; events: ProviderEvent[] } {
    const known = this.threads.get(nativeThreadId);
    if (known && !known.ended) {
      known.holder = holder;
      return { providerThreadId: known.providerThreadId, events: [] };
    }
    const earlier = known ? null : this.knownThreadOf(nativeThreadId);
    const providerThreadId = earlier ? ProviderThreadId.parse(earlier) : this.ids.next('providerThread');
    this.threads.set(nativeThreadId, { providerThreadId, holder, ended: false });
    return { providerThreadId, events: this.changed(nativeThreadId, 'bound') };
  }

  /** A change of the child's thread (its turn began or ended, it was closed or lost); nothing once it ended. */
  changed(nativeThreadId: string | null, change: Change): ProviderEvent[] {
    const t = nativeThreadId ? this.threads.get(nativeThreadId) : undefined;
    if (!t || t.ended || !nativeThreadId) return [];
    if (change === 'closed' || change === 'lost') t.ended = true;
    return [
      {
        type: 'subagent.thread',
        threadId: this.threadId,
        ...t.holder,
        providerThreadId: t.providerThreadId,
        nativeThreadRef: nativeThreadId,
        change,
      },
    ];
  }

  /** The session is gone: every child's provider thread with it. */
  loseAll(): ProviderEvent[] {
    return [...this.threads.keys()].flatMap((id) => this.changed(id, 'lost'));
  }
}
