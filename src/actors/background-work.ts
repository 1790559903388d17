import { runTerminalStatuses } from '../domain/statuses.js';
import type { Store } from '../persistence/store.js';

/** What an agent does with no run of Baton's going, counted; null when it does nothing. */
export interface BackgroundWork {
  /** Background subagents still open (Claude's helpers: subagent nodes marked `background`). */
  subagents: number;
  /** Asks that outlive their run (open requests whose run has ended). */
  requests: number;
  /** Turns the agent began of its own (`origin: agent_turn` runs not ended). */
  ownTurns: number;
}

const ended = (status: string) => (runTerminalStatuses as readonly string[]).includes(status);

/**
 * The work of a thread's agent that outlives its runs (docs/claude.md, "Background subagents"):
 * read from the store, so a Stop cascade, task_cancel, thread_wait and a wake-up agree on it.
 */
export function backgroundWork(store: Store, threadId: string): BackgroundWork | null {
  const runEnded = (runId: string) => ended(store.projections.get('runs', runId)?.status ?? 'queued');
  const subagents = store.projections
    .list('graph_nodes', threadId)
    .filter((n) => n.kind === 'subagent' && n.detail?.['background'] === true && !ended(n.status)).length;
  const requests = store.projections
    .list('requests', threadId)
    .filter((r) => (r.status === 'pending' || r.status === 'answering') && runEnded(r.runId)).length;
  const ownTurns = store.projections
    .list('runs', threadId)
    .filter((r) => r.origin?.kind === 'agent_turn' && !ended(r.status)).length;
  return subagents + requests + ownTurns > 0 ? { subagents, requests, ownTurns } : null;
}
