import type { Sighting, TrackedActor } from './actor-store.js';
import { transitionLabel, type ChartModel } from './chart-model.js';
import { ChartSvg } from './chart-svg.js';
import { kindTitles } from './machines.js';
import type { HistoryEntry } from './thread-actors.js';

function takenText(s: Sighting): string {
  if (!s.taken) return 'read';
  const last = s.taken.last.map(transitionLabel).join(' or ');
  const before = s.taken.transitions.slice(0, -1).map((t) => t.event);
  return before.length ? `${last} (after ${before.join(', ')})` : last;
}

const time = (at: number) => new Date(at).toLocaleTimeString();

/** One actor: its chart with the state it is in and the transition just taken, its state changes and its events. */
export function ActorDetail({
  actor,
  chart,
  history,
}: {
  actor: TrackedActor;
  chart: ChartModel | null;
  history: HistoryEntry[];
}) {
  const now = actor.sightings.at(-1);
  const previous = actor.sightings.at(-2);
  const stale = chart && chart.version !== actor.machineVersion;
  return (
    <div class="sc-detail" data-selected={actor.id}>
      <section class="sc-chart-panel" aria-label={`The chart of ${actor.id}`}>
        <h3>
          {kindTitles[actor.kind] ?? actor.kind} <code>{actor.id}</code>
          {chart && (
            <span class="sc-machine">
              {' '}
              · machine {chart.name} v{chart.version}
            </span>
          )}
        </h3>
        <p class="sc-now" aria-live="polite">
          In <code data-now={now?.leaf}>{now?.leaf || '—'}</code>
          {actor.status !== 'active' && <span class="sc-status"> ({actor.status})</span>}
          {now?.taken && (
            <>
              {' '}
              from <code>{previous?.leaf}</code> by <strong class="sc-taken-text">{takenText(now)}</strong>
            </>
          )}
        </p>
        {stale && (
          <p class="sc-warning">
            This snapshot was written by version {actor.machineVersion} of the machine; the chart is version{' '}
            {chart.version}.
          </p>
        )}
        {chart ? (
          <ChartSvg
            model={chart}
            value={actor.state}
            taken={now?.taken ?? null}
            label={`${chart.name} chart, in state ${now?.leaf ?? 'unknown'}`}
            detail="compact"
          />
        ) : (
          <p class="sc-empty">No machine is drawn for actors of kind {actor.kind}.</p>
        )}
      </section>
      <aside class="sc-history" aria-label={`The history of ${actor.id}`}>
        <h4>State changes seen</h4>
        <ol class="sc-sightings">
          {actor.sightings.map((s, i) => (
            <li key={i} data-leaf={s.leaf}>
              <code>{s.leaf}</code> <span class="sc-dim">at #{s.sequence}</span>
              {s.taken && <div class="sc-dim">by {takenText(s)}</div>}
            </li>
          ))}
        </ol>
        <h4>Events ({history.length})</h4>
        {history.length === 0 ? (
          <p class="sc-dim">No events name this actor.</p>
        ) : (
          <ol class="sc-events">
            {history
              .slice(-100)
              .reverse()
              .map((e) => (
                <li key={e.sequence}>
                  <span class="sc-dim">#{e.sequence}</span> <code>{e.type}</code>{' '}
                  <span class="sc-dim">{time(e.at)}</span>
                  {e.summary && <div class="sc-summary">{e.summary}</div>}
                </li>
              ))}
          </ol>
        )}
      </aside>
    </div>
  );
}
