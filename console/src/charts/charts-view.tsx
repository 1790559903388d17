import { useState } from 'preact/hooks';
import { useConsole } from '../live/use-stream.js';
import type { TrackedActor } from './actor-store.js';
import { ActorDetail } from './actor-detail.js';
import { chartOfKind, kindTitles } from './machines.js';
import { useThreadActors } from './thread-actors.js';
import './charts.css';

/** How many actors of one kind are listed before "show all" (a long thread has thousands of nodes). */
const shownPerKind = 40;

const shortId = (id: string) => (id.length > 14 ? `${id.slice(0, 5)}…${id.slice(-6)}` : id);

/** The actor a person most likely wants first: a run queued or live (its state is nested), else the newest run, else the supervisor. */
function defaultActor(actors: TrackedActor[]): TrackedActor | undefined {
  const runs = actors.filter((a) => a.kind === 'run');
  return runs.find((r) => typeof r.state !== 'string' || r.state === 'queued') ?? runs.at(-1) ?? actors[0];
}

/**
 * `#/thread/<id>/charts`: every actor of the thread by kind, the selected one's machine
 * with its current state highlighted and the transition just taken marked, live, and its
 * event history beside it.
 */
export function ChartsView({ threadId }: { threadId: string }) {
  const { client } = useConsole();
  const live = useThreadActors(client, threadId);
  const [selected, setSelected] = useState<string | null>(null);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  if (!live) return <p class="sc-loading">Loading the thread's actors…</p>;
  const actors = [...live.store.actors.values()];
  const chosen = (selected && live.store.actors.get(selected)) || defaultActor(actors);
  const kinds = Object.keys(kindTitles).filter((k) => actors.some((a) => a.kind === k));
  const others = [...new Set(actors.map((a) => a.kind))].filter((k) => !(k in kindTitles));
  return (
    <section class="sc-view" aria-label="Statechart viewer">
      <header class="sc-head">
        <h2>
          Actors of thread <code>{threadId}</code>
        </h2>
      </header>
      {(live.error || live.store.error) && (
        <>
          <p class="sc-error" role="alert">
            {live.error ?? live.store.error}
          </p>
          <p>
            <a href="#/threads">Back to the threads</a>
          </p>
        </>
      )}
      {live.store.sequence >= 0 && actors.length === 0 && (
        <p class="sc-empty">This thread has no actors yet (nothing has happened in it).</p>
      )}
      <div class="sc-columns">
        <nav class="sc-actors" aria-label="Actors by kind">
          {[...kinds, ...others].map((kind) => {
            const ofKind = actors.filter((a) => a.kind === kind);
            const all = expanded.has(kind);
            const shown = all ? ofKind : ofKind.slice(-shownPerKind);
            return (
              <section key={kind} class="sc-kind" data-kind={kind}>
                <h3>
                  {kindTitles[kind] ?? kind} <span class="sc-count">{ofKind.length}</span>
                </h3>
                {shown.length < ofKind.length && (
                  <button type="button" class="sc-more" onClick={() => setExpanded(new Set(expanded).add(kind))}>
                    Show all {ofKind.length}
                  </button>
                )}
                <ul>
                  {shown.map((a) => {
                    const leaf = a.sightings.at(-1)?.leaf ?? '';
                    return (
                      <li key={a.id}>
                        <button
                          type="button"
                          class="sc-actor"
                          aria-pressed={chosen?.id === a.id}
                          aria-label={`${kindTitles[kind] ?? kind} ${a.id}: ${leaf}`}
                          onClick={() => setSelected(a.id)}
                          data-actor={a.id}
                          data-kind={a.kind}
                          data-state={leaf}
                          data-state-history={a.sightings.map((s) => s.leaf).join(' ')}
                        >
                          <code>{shortId(a.id)}</code>
                          <span class={`sc-badge is-${a.status}`}>{leaf || '—'}</span>
                        </button>
                      </li>
                    );
                  })}
                </ul>
              </section>
            );
          })}
        </nav>
        {chosen && (
          <ActorDetail
            key={chosen.id}
            actor={chosen}
            chart={chartOfKind(chosen.kind)}
            history={live.history.get(chosen.id) ?? []}
          />
        )}
      </div>
    </section>
  );
}
