import { z } from 'zod';
import { RuntimeRequest } from '../../../src/domain/entities.js';
import { ThreadId } from '../../../src/domain/ids.js';
import {
  projectionSchemas,
  type ProjectionName,
  type ProjectionRow,
  type TurnItemView,
} from '../../../src/domain/projections.js';
import type { StreamRequest } from '../../../src/domain/stream-request.js';
import type { MemoryTables } from './memory-tables.js';

const S = projectionSchemas;

/** The order key the store gives a row of each table (the projector passes the same). */
export function ordOf(name: ProjectionName, row: unknown): number {
  const r = row as { createdAt?: number; position?: number; runOrdinal?: number | null };
  if (name === 'threads') return r.createdAt ?? 0;
  if (name === 'turn_items' || name === 'activities') return r.position ?? 0;
  if (name === 'checkpoints') return r.runOrdinal ?? 0;
  return 0;
}

/** Files a snapshot's rows; `threadId` for rows that do not name their thread (graph nodes), as the server files them. */
function lay(
  tables: MemoryTables,
  name: ProjectionName,
  rows: readonly unknown[],
  threadId: string | null = null,
): void {
  for (const row of rows) {
    const r = row as { id: string; threadId?: string | null };
    tables.put(name, r.id, name === 'threads' ? r.id : (r.threadId ?? threadId), ordOf(name, row), row);
  }
}

/** What a stream holds beyond its tables: a fork's inherited history (static, from the snapshot). */
export interface Extras {
  inherited: TurnItemView[];
}

/**
 * One subscription stream as the console keeps it: which projection tables it holds, how
 * its snapshot (validated with Baton's own schemas) is laid into them.
 */
export interface StreamSpec {
  key: string;
  request: StreamRequest;
  kept: ProjectionName[];
  load(snapshot: unknown, tables: MemoryTables): Extras;
}

const none: Extras = { inherited: [] };

const ThreadsSnapshot = z.object({ threads: z.array(S.threads) });
const RequestsSnapshot = z.object({ requests: z.array(RuntimeRequest) });
const GraphSnapshot = z.object({ nodes: z.array(S.graph_nodes), runs: z.array(S.runs) });
const ThreadSnapshot = z.object({
  thread: S.threads,
  runs: z.array(S.runs),
  turnItems: z.array(S.turn_items),
  visibleTurnItems: z.array(S.turn_items),
  messages: z.array(S.messages),
  plans: z.array(S.plans),
  pendingRequests: z.array(S.requests),
  checkpoints: z.array(S.checkpoints),
  contextTransfers: z.array(S.context_transfers).default([]),
  handoffs: z.array(S.context_handoffs).default([]),
});

export const threadsSpec: StreamSpec = {
  key: 'threads',
  request: { stream: 'threads' },
  // Runs too: a run queued while the console watches is then known when it starts or ends.
  kept: ['threads', 'runs'],
  load(snapshot, tables) {
    lay(tables, 'threads', ThreadsSnapshot.parse(snapshot).threads);
    return none;
  },
};

export const requestsSpec: StreamSpec = {
  key: 'requests',
  request: { stream: 'requests' },
  kept: ['requests'],
  load(snapshot, tables) {
    lay(tables, 'requests', RequestsSnapshot.parse(snapshot).requests);
    return none;
  },
};

export function threadSpec(threadId: string): StreamSpec {
  return {
    key: `thread:${threadId}`,
    request: { stream: 'thread', threadId: ThreadId.parse(threadId) },
    kept: [
      'threads',
      'runs',
      'turn_items',
      'messages',
      'plans',
      'requests',
      'checkpoints',
      'context_transfers',
      'context_handoffs',
    ],
    load(snapshot, tables) {
      const s = ThreadSnapshot.parse(snapshot);
      lay(tables, 'threads', [s.thread]);
      lay(tables, 'runs', s.runs);
      lay(tables, 'turn_items', s.turnItems);
      lay(tables, 'messages', s.messages);
      lay(tables, 'plans', s.plans);
      lay(tables, 'requests', s.pendingRequests);
      lay(tables, 'checkpoints', s.checkpoints);
      lay(tables, 'context_transfers', s.contextTransfers);
      lay(tables, 'context_handoffs', s.handoffs);
      return { inherited: s.visibleTurnItems.filter((i) => i.inherited) };
    },
  };
}

/** The execution graph of a thread (nodes and runs), for views that draw it. */
export function graphSpec(threadId: string): StreamSpec {
  return {
    key: `graph:${threadId}`,
    request: { stream: 'graph', threadId: ThreadId.parse(threadId) },
    kept: ['graph_nodes', 'runs'],
    load(snapshot, tables) {
      const s = GraphSnapshot.parse(snapshot);
      lay(tables, 'graph_nodes', s.nodes, threadId);
      lay(tables, 'runs', s.runs);
      return none;
    },
  };
}

/** Checks a stored row against its table's schema (sessionStorage is an edge too). */
export function validRow(name: ProjectionName, row: unknown): row is ProjectionRow<ProjectionName> {
  return projectionSchemas[name].safeParse(row).success;
}
