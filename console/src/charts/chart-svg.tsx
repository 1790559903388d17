import ElkApi, { type ELK } from 'elkjs/lib/elk-api.js';
import elkWorkerUrl from 'elkjs/lib/elk-worker.min.js?url';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ChartModel } from './chart-model.js';
import { chartLayout, LINE, type ChartLayout, type Detail, type EdgeLayout, type Measure } from './layout.js';
import { activeStates, leafPaths, type StateValue, type TakenPath } from './transition.js';

const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** Text widths as the browser draws the chart's font (one canvas for all charts). */
let context: CanvasRenderingContext2D | null = null;
export const measureText: Measure = (text, bold = false) => {
  context ??= document.createElement('canvas').getContext('2d');
  if (!context) return text.length * 7;
  context.font = bold ? `600 ${FONT}` : FONT;
  return Math.ceil(context.measureText(text).width);
};

/** ELK in a Web Worker: the page stays responsive while it lays charts out. */
let elk: ELK | null = null;
const elkOf = (): ELK => (elk ??= new ElkApi({ workerUrl: elkWorkerUrl }));

/** The chart's layout, once ELK has made it (null until then, or the error). */
export function useChartLayout(
  model: ChartModel,
  detail: Detail,
): { layout: ChartLayout | null; error: string | null } {
  const [state, setState] = useState<{ layout: ChartLayout | null; error: string | null }>({
    layout: null,
    error: null,
  });
  useEffect(() => {
    let live = true;
    setState({ layout: null, error: null });
    chartLayout(model, measureText, elkOf(), detail).then(
      (layout) => live && setState({ layout, error: null }),
      (error: unknown) => live && setState({ layout: null, error: `could not lay out the chart: ${String(error)}` }),
    );
    return () => void (live = false);
  }, [model, detail]);
  return state;
}

/** ELK's spline sections are a start point then cubic Bézier triples; anything else is a polyline. */
function pathOf(points: EdgeLayout['points']): string {
  const [start, ...rest] = points;
  if (!start) return '';
  const p = (q: { x: number; y: number }) => `${q.x.toFixed(1)},${q.y.toFixed(1)}`;
  if (rest.length >= 3 && rest.length % 3 === 0) {
    const curves: string[] = [];
    for (let i = 0; i < rest.length; i += 3) curves.push(`C${p(rest[i]!)} ${p(rest[i + 1]!)} ${p(rest[i + 2]!)}`);
    return `M${p(start)} ${curves.join(' ')}`;
  }
  return `M${p(start)} ${rest.map((q) => `L${p(q)}`).join(' ')}`;
}

export interface ChartSvgProps {
  model: ChartModel;
  /** The actor's state: its states are highlighted (none in the design review). */
  value?: StateValue | null;
  /** How it got there from the state before: the last step is marked "just taken". */
  taken?: TakenPath | null;
  /** A title for assistive technology. */
  label: string;
  detail: Detail;
}

/** Scrolls the box (not the page) so the state is in view, if it is not. */
function reveal(box: HTMLElement, svg: SVGSVGElement, path: string): void {
  const target = svg.querySelector(`[data-state="${CSS.escape(path)}"] rect`);
  if (!target) return;
  const b = box.getBoundingClientRect();
  const t = target.getBoundingClientRect();
  const inView = t.left >= b.left && t.right <= b.right && t.top >= b.top && t.bottom <= b.bottom;
  if (inView) return;
  box.scrollLeft += t.left - b.left - (b.width - t.width) / 2;
  box.scrollTop += t.top - b.top - (b.height - t.height) / 2;
}

/** A machine drawn from its chart, with the current state and the transition just taken marked. */
export function ChartSvg({ model, value = null, taken = null, label, detail }: ChartSvgProps) {
  const { layout, error } = useChartLayout(model, detail);
  const [fit, setFit] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const svg = useRef<SVGSVGElement>(null);
  const current = value === null ? '' : (leafPaths(value)[0] ?? '');
  // The current state stays in view as the actor moves (at actual size the chart scrolls).
  useLayoutEffect(() => {
    if (box.current && svg.current && current) reveal(box.current, svg.current, current);
  }, [layout, current, fit]);
  if (error) return <p class="sc-error">{error}</p>;
  if (!layout) return <p class="sc-loading">Laying out the {model.name} chart…</p>;
  const active = value === null ? new Set<string>() : activeStates(value);
  const last = new Set((taken?.last ?? []).map((t) => t.id));
  const passed = new Set((taken?.transitions ?? []).slice(0, -1).map((t) => t.id));
  // Compound states first, so their children draw over them.
  const states = [...layout.states].sort((a, b) => a.path.split('.').length - b.path.split('.').length);
  const width = Math.ceil(layout.width);
  const height = Math.ceil(layout.height);
  return (
    <div class="sc-chart-frame">
      {layout.rootLines.length > 0 && (
        <p class="sc-root-lines">
          The whole machine: <code>{layout.rootLines.join(' · ')}</code>
        </p>
      )}
      <button type="button" class="sc-fit" aria-pressed={fit} onClick={() => setFit(!fit)}>
        {fit ? 'Actual size' : 'Fit to width'}
      </button>
      <div class="sc-chart-scroll" ref={box}>
        <svg
          ref={svg}
          class="sc-chart"
          role="img"
          aria-label={label}
          viewBox={`0 0 ${width} ${height}`}
          width={fit ? undefined : width}
          height={fit ? undefined : height}
          data-fit={fit}
          data-chart={model.name}
          data-current={value === null ? undefined : current}
        >
          <defs>
            <marker id="sc-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
              <path d="M0,0 L10,5 L0,10 z" class="sc-arrowhead" />
            </marker>
            <marker
              id="sc-arrow-taken"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto"
            >
              <path d="M0,0 L10,5 L0,10 z" class="sc-arrowhead is-taken" />
            </marker>
          </defs>
          {states.map((s) => {
            const compound = s.state.children.length > 0;
            const classes = [
              'sc-state',
              compound ? 'is-compound' : '',
              s.state.type === 'final' ? 'is-final' : '',
              active.has(s.path) ? 'is-active' : '',
              s.path === current ? 'is-current' : '',
            ];
            return (
              <g key={s.path} class={classes.filter(Boolean).join(' ')} data-state={s.path}>
                <rect x={s.x} y={s.y} width={s.width} height={s.height} rx={8} />
                {s.state.type === 'final' && (
                  <rect
                    class="sc-final-ring"
                    x={s.x + 3}
                    y={s.y + 3}
                    width={s.width - 6}
                    height={s.height - 6}
                    rx={6}
                  />
                )}
                <text class="sc-state-name" x={s.x + 8} y={s.y + LINE + 2}>
                  {s.state.key}
                </text>
                {s.lines.map((line, i) => (
                  <text
                    key={i}
                    class={`sc-state-line${s.lineTransitions[i]?.timer ? ' is-timer' : ''}`}
                    x={s.x + 8}
                    y={s.y + LINE * (i + 2) + 2}
                  >
                    {line}
                  </text>
                ))}
              </g>
            );
          })}
          {layout.initials.map((b, i) => (
            <circle key={i} class="sc-initial" cx={b.x + b.width / 2} cy={b.y + b.height / 2} r={b.width / 2} />
          ))}
          {layout.anyState && (
            <g class="sc-any">
              <rect
                x={layout.anyState.x}
                y={layout.anyState.y}
                width={layout.anyState.width}
                height={layout.anyState.height}
                rx={4}
              />
              <text x={layout.anyState.x + 8} y={layout.anyState.y + LINE + 4}>
                any state
              </text>
            </g>
          )}
          {layout.edges.map((e) => {
            const t = e.transition;
            const isLast = t !== null && last.has(t.id);
            const classes = [
              'sc-edge',
              t === null ? 'is-initial' : '',
              t?.timer ? 'is-timer' : '',
              isLast ? 'is-taken' : '',
              t !== null && passed.has(t.id) ? 'is-passed' : '',
            ];
            return (
              <g key={e.id} class={classes.filter(Boolean).join(' ')} data-transition={t?.id} data-event={t?.event}>
                <path d={pathOf(e.points)} marker-end={`url(#${isLast ? 'sc-arrow-taken' : 'sc-arrow'})`} />
                {e.label && (
                  <text class="sc-edge-label" x={e.label.x + 2} y={e.label.y + LINE - 3}>
                    {e.label.text}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
    </div>
  );
}
