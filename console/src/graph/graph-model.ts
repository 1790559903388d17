import type { GraphNode, RunView } from '../../../src/domain/projections.js';

/**
 * The execution graph of a thread as a tree: its provider threads, then its runs, each
 * with its attempts, each attempt with the tree of nodes it made (by `parentNodeId`); a
 * node that owns a provider thread (a subagent) shows it under itself.
 */

export type ItemKind = 'thread' | 'group' | 'provider-thread' | 'run' | 'attempt' | 'node';

export interface TreeItem {
  /** Unique in the tree (kinds prefix ids that could repeat: a provider thread shows under its attempt too). */
  key: string;
  kind: ItemKind;
  /** The app id it shows (none for a group). */
  id: string | null;
  title: string;
  status: string | null;
  /** Further facts in words: provider, reason, kind of node. */
  detail: string;
  children: TreeItem[];
  /** Folded until the person opens it: ended runs but the newest, attempts a steer replaced. */
  foldedByDefault: boolean;
}

export interface ProviderThreadInfo {
  id: string;
  /** Its actor's state (`idle`, `active`), when known. */
  state: string | null;
}

const ended = new Set(['completed', 'interrupted', 'failed', 'cancelled', 'rolled_back', 'superseded']);
const clip = (text: string | null | undefined, n = 60) =>
  !text ? '' : text.length > n ? `${text.slice(0, n - 1)}…` : text;

function providerThreadItem(key: string, id: string, info: Map<string, ProviderThreadInfo>, note = ''): TreeItem {
  return {
    key,
    kind: 'provider-thread',
    id,
    title: `provider thread ${id}`,
    status: info.get(id)?.state ?? null,
    detail: note,
    children: [],
    foldedByDefault: false,
  };
}

function nodeItems(
  nodes: readonly GraphNode[],
  parent: string | null,
  byParent: Map<string | null, GraphNode[]>,
  info: Map<string, ProviderThreadInfo>,
  depth = 0,
): TreeItem[] {
  if (depth > 64) return [];
  return (byParent.get(parent) ?? []).map((n) => {
    const children = nodeItems(nodes, n.id, byParent, info, depth + 1);
    // A node with a provider thread of its own (a subagent) runs on it: shown beneath it.
    if (n.providerThreadId && n.kind === 'subagent')
      children.unshift(providerThreadItem(`pt:${n.id}:${n.providerThreadId}`, n.providerThreadId, info, 'its own'));
    return {
      key: `node:${n.id}`,
      kind: 'node',
      id: n.id,
      title: n.title ? `${n.kind} · ${clip(n.title, 120)}` : n.kind,
      status: n.status,
      detail: n.providerTurnId ? `turn ${n.providerTurnId}` : '',
      children,
      foldedByDefault: false,
    };
  });
}

export function graphTree(
  threadId: string,
  runs: readonly RunView[],
  nodes: readonly GraphNode[],
  providerThreads: ReadonlyMap<string, ProviderThreadInfo>,
): TreeItem {
  const info = new Map(providerThreads);
  for (const id of [
    ...runs.flatMap((r) => [r.providerThreadId, ...r.attempts.map((a) => a.providerThreadId)]),
    ...nodes.map((n) => n.providerThreadId),
  ])
    if (id && !info.has(id)) info.set(id, { id, state: null });

  const byRun = new Map<string, GraphNode[]>();
  for (const n of nodes) byRun.set(n.runId, [...(byRun.get(n.runId) ?? []), n]);

  const runItems = runs.map((run): TreeItem => {
    const own = byRun.get(run.id) ?? [];
    const known = new Set(own.map((n) => n.id));
    const attemptOf = (attemptId: string | null) =>
      own.filter((n) => n.attemptId === attemptId && (n.parentNodeId === null || !known.has(n.parentNodeId)));
    const under = (roots: GraphNode[]): Map<string | null, GraphNode[]> => {
      const byParent = new Map<string | null, GraphNode[]>([[null, roots]]);
      for (const n of own)
        if (n.parentNodeId !== null && known.has(n.parentNodeId))
          byParent.set(n.parentNodeId, [...(byParent.get(n.parentNodeId) ?? []), n]);
      return byParent;
    };
    const attempts = run.attempts.map((a): TreeItem => {
      const children = nodeItems(own, null, under(attemptOf(a.id)), info);
      if (a.providerThreadId)
        children.unshift(providerThreadItem(`pt:${a.id}:${a.providerThreadId}`, a.providerThreadId, info, 'runs on'));
      return {
        key: `attempt:${a.id}`,
        kind: 'attempt',
        id: a.id,
        title: `attempt ${a.attemptOrdinal}`,
        status: a.status,
        detail: a.reason.replace(/_/g, ' '),
        children,
        // An attempt a steer replaced is history; the one that ran the turn is what a person looks for.
        foldedByDefault: a.status === 'superseded',
      };
    });
    // Nodes of no attempt (recorded before one started) hang from the run itself.
    const loose = nodeItems(own, null, under(attemptOf(null)), info);
    return {
      key: `run:${run.id}`,
      kind: 'run',
      id: run.id,
      title: `${run.ordinal === null ? 'run (not started)' : `run ${run.ordinal}`} · ${clip(run.id, 40)}`,
      status: run.status,
      detail: [run.provider, run.model, run.queuePosition !== null ? `queue position ${run.queuePosition}` : null]
        .filter(Boolean)
        .join(' · '),
      children: [...attempts, ...loose],
      foldedByDefault: false,
    };
  });
  // Only the newest ended run is open at first: an old thread opens as a list of runs.
  const lastEnded = [...runItems].reverse().find((r) => ended.has(r.status ?? ''));
  for (const r of runItems) r.foldedByDefault = ended.has(r.status ?? '') && r !== lastEnded;

  const threads: TreeItem = {
    key: 'group:provider-threads',
    kind: 'group',
    id: null,
    title: `provider threads (${info.size})`,
    status: null,
    detail: '',
    children: [...info.values()].map((p) => providerThreadItem(`pt:${p.id}`, p.id, info)),
    foldedByDefault: false,
  };
  return {
    key: `thread:${threadId}`,
    kind: 'thread',
    id: threadId,
    title: `thread ${threadId}`,
    status: null,
    detail: `${runs.length} runs · ${nodes.length} nodes`,
    children: [threads, ...runItems],
    foldedByDefault: false,
  };
}
