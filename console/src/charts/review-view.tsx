import type { ChartModel, ChartTransition } from './chart-model.js';
import { ChartSvg } from './chart-svg.js';
import { charts } from './machines.js';
import './charts.css';

const stateName = (path: string) => path || '(any state)';

function TransitionRow({ t }: { t: ChartTransition }) {
  return (
    <tr data-transition={t.id} data-kind={t.kind}>
      <td>
        <code>{stateName(t.source)}</code>
      </td>
      <td>
        <code class="sc-event">{t.event}</code>
      </td>
      <td>{t.guard ? <code class="sc-guard">[{t.guard}]</code> : <span class="sc-dim">—</span>}</td>
      <td>
        {t.targets.length ? (
          t.targets.map((target) => <code key={target}>{stateName(target)}</code>)
        ) : (
          <span class="sc-dim">stays</span>
        )}
      </td>
      <td>
        {t.actions.length ? (
          t.actions.map((a) => (
            <code key={a} class="sc-action">
              {a}
            </code>
          ))
        ) : (
          <span class="sc-dim">—</span>
        )}
      </td>
      <td>
        {t.timer ? (
          <span class="sc-timer" data-timer={t.kind}>
            {t.timer}
          </span>
        ) : (
          <span class="sc-dim">—</span>
        )}
      </td>
    </tr>
  );
}

function MachineReview({ model }: { model: ChartModel }) {
  const states = [...model.states.values()];
  const guarded = model.transitions.filter((t) => t.guard).length;
  const timed = model.transitions.filter((t) => t.timer).length;
  return (
    <section class="sc-review-machine" id={`review-${model.name}`} data-review-machine={model.name}>
      <h3>
        {model.name} <span class="sc-machine">v{model.version}</span>
      </h3>
      <p>{model.summary}</p>
      <p class="sc-dim">
        {states.length - 1} states · {model.transitions.length} transitions · {guarded} guarded · {timed} on a timer
      </p>
      <ChartSvg model={model} label={`${model.name} chart`} detail="full" />
      <details class="sc-states">
        <summary>States with entry and exit actions</summary>
        <ul>
          {states
            .filter((s) => s.path && (s.entry.length || s.exit.length))
            .map((s) => (
              <li key={s.path}>
                <code>{s.path}</code>
                {s.entry.length > 0 && <> entry / {s.entry.join(', ')}</>}
                {s.exit.length > 0 && <> exit / {s.exit.join(', ')}</>}
              </li>
            ))}
          {model.states.get('')!.entry.length > 0 && (
            <li>
              <code>(the machine)</code> entry / {model.states.get('')!.entry.join(', ')}
            </li>
          )}
        </ul>
      </details>
      <div class="sc-table-scroll">
        <table class="sc-transitions">
          <caption>Transitions of {model.name}</caption>
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">Event</th>
              <th scope="col">Guard</th>
              <th scope="col">To</th>
              <th scope="col">Actions</th>
              <th scope="col">Timer</th>
            </tr>
          </thead>
          <tbody>
            {model.transitions.map((t) => (
              <TransitionRow key={t.id} t={t} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/**
 * `#/review`: the design-review mode. Every machine Baton runs, drawn, with each transition's
 * event, guard, actions and timer in a table beside the chart.
 */
export function ReviewView() {
  return (
    <section class="sc-view sc-review" aria-label="Design review">
      <header class="sc-head">
        <h2>Design review: {charts.length} machines</h2>
        <p class="sc-dim">
          Guards in [brackets], actions after /; a transition a timer fires is dashed violet and says which timer. Built
          from the machines in src/machines/ (the same definitions statecharts/ exports).
        </p>
        <nav class="sc-toc" aria-label="Machines">
          {charts.map((c) => (
            <button
              key={c.name}
              type="button"
              onClick={() => document.getElementById(`review-${c.name}`)?.scrollIntoView({ behavior: 'smooth' })}
            >
              {c.name}
            </button>
          ))}
        </nav>
      </header>
      {charts.map((c) => (
        <MachineReview key={c.name} model={c} />
      ))}
    </section>
  );
}
