import type { DomainEvent } from '../domain/events.js';
import type { StreamRequest } from '../domain/stream-request.js';
import type { Store } from '../persistence/store.js';
import { activityEventTypes } from '../projections/activities.js';

// The subscription streams of the Socket.IO API, one per projection: what a snapshot of
// it holds, and which committed events belong to it. A subscriber gets the snapshot with
// its `snapshotSequence`, then every matching event with a greater sequence, in order.

const threadEvents = (type: string) => type.startsWith('thread.') || type.startsWith('run.');
const requestEvents = (type: string) => type.startsWith('runtime-request.');
const graphEvents = (type: string) =>
  type.startsWith('node.') ||
  type.startsWith('attempt.') ||
  type.startsWith('run.') ||
  type.startsWith('provider-thread.');

/** Which committed events a stream carries. */
export function streamMatches(req: StreamRequest, event: DomainEvent): boolean {
  switch (req.stream) {
    case 'threads':
      return threadEvents(event.type);
    case 'thread':
      return event.threadId === req.threadId;
    case 'graph':
      return event.threadId === req.threadId && graphEvents(event.type);
    case 'activities':
      return event.threadId === req.threadId && activityEventTypes.has(event.type);
    case 'requests':
      return requestEvents(event.type);
    case 'sessions':
      return event.type.startsWith('provider-session.');
  }
}

/** The stream's snapshot, read from the projections (a consistent read at one sequence). */
export function streamSnapshot(store: Store, req: StreamRequest): unknown {
  const p = store.projections;
  switch (req.stream) {
    case 'threads':
      return { threads: p.list('threads').filter((t) => t.status !== 'deleted') };
    case 'thread': {
      const thread = p.get('threads', req.threadId);
      if (!thread) return null;
      const turnItems = p.list('turn_items', req.threadId);
      return {
        thread,
        runs: p.list('runs', req.threadId),
        turnItems,
        // The conversation as it stands: items of rolled-back runs stay in `turnItems`, marked, and leave this.
        visibleTurnItems: turnItems.filter((i) => !i.rolledBack),
        messages: p.list('messages', req.threadId),
        plans: p.list('plans', req.threadId),
        pendingRequests: p.list('requests', req.threadId).filter((r) => r.status === 'pending'),
        checkpoints: p.list('checkpoints', req.threadId),
      };
    }
    case 'graph':
      return { nodes: p.list('graph_nodes', req.threadId), runs: p.list('runs', req.threadId) };
    case 'activities':
      return { activities: p.list('activities', req.threadId) };
    case 'requests':
      return { requests: p.list('requests').filter((r) => r.status === 'pending') };
    case 'sessions':
      return { sessions: p.list('sessions') };
  }
}
