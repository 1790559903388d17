import { useEffect, useMemo, useState } from 'preact/hooks';
import { ActorStore } from '../charts/actor-store.js';
import { graphSpec } from '../live/stream-specs.js';
import { useConsole, useStream } from '../live/use-stream.js';
import { graphTree, type ProviderThreadInfo } from './graph-model.js';
import { Tree } from './tree.js';
import './graph.css';

/**
 * The states of the thread's provider threads (the `actors` query; the graph stream has
 * their events but no snapshot of them), read again as the stream moves on.
 */
function useProviderThreads(threadId: string, cursor: number): Map<string, ProviderThreadInfo> {
  const { client } = useConsole();
  const store = useMemo(() => new ActorStore(client, threadId), [client, threadId]);
  const [, setVersion] = useState(0);
  useEffect(() => {
    const off = store.onChange(() => setVersion((n) => n + 1));
    return () => {
      off();
      store.close();
    };
  }, [store]);
  useEffect(() => {
    if (cursor >= 0) store.committed(cursor);
  }, [store, cursor]);
  const out = new Map<string, ProviderThreadInfo>();
  for (const a of store.actors.values())
    if (a.kind === 'provider_thread') out.set(a.id, { id: a.id, state: a.sightings.at(-1)?.leaf ?? null });
  return out;
}

/**
 * `#/thread/<id>/graph`: the execution graph of a thread, live from the `graph` stream
 * (snapshot, then its events through Baton's own projector): runs, attempts, nodes and
 * provider threads as a tree to fold.
 */
export function GraphView({ threadId }: { threadId: string }) {
  const stream = useStream(graphSpec(threadId));
  const providerThreads = useProviderThreads(threadId, stream.status === 'live' ? stream.cursor : -1);
  const runs = stream.tables.list('runs', threadId);
  const nodes = stream.tables.list('graph_nodes', threadId);
  return (
    <section class="gv-view" aria-label="Execution graph" data-cursor={stream.cursor}>
      <header class="gv-head">
        <h2>
          Execution graph of <code>{threadId}</code>
        </h2>
        <p class="gv-dim">
          {runs.length} runs · {nodes.length} nodes · {providerThreads.size} provider threads
        </p>
      </header>
      {stream.status === 'error' && (
        <p class="gv-error" role="alert">
          {stream.error}
        </p>
      )}
      {stream.status === 'missing' && (
        <>
          <p class="gv-error" role="alert">
            Baton has no thread {threadId}.
          </p>
          <p>
            <a href="#/threads">Back to the threads</a>
          </p>
        </>
      )}
      {stream.status === 'loading' && <p class="gv-dim">Loading the graph…</p>}
      {stream.status === 'live' && runs.length === 0 && nodes.length === 0 && (
        <p class="gv-dim">Nothing has run in this thread yet.</p>
      )}
      {stream.status === 'live' && (
        <Tree root={graphTree(threadId, runs, nodes, providerThreads)} label={`Execution graph of ${threadId}`} />
      )}
    </section>
  );
}
