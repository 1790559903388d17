import type { ELK, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import { transitionLabel, type ChartModel, type ChartState, type ChartTransition } from './chart-model.js';

/**
 * Lays a chart out with ELK's layered algorithm: compound states hold their children,
 * each state box lists its entry/exit actions and the transitions that stay in it (they
 * would be loops), and every transition that moves is an arrow with its label. The root's
 * own transitions start at an "any state" box. Coordinates come out absolute.
 */

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface StateBox extends Box {
  path: string;
  state: ChartState;
  /** The lines under the state's name: entry/exit actions, transitions that stay put. */
  lines: string[];
  /** The same lines' transitions (null for an entry/exit line), to mark the one taken. */
  lineTransitions: (ChartTransition | null)[];
}

export interface EdgeLayout {
  id: string;
  /** The transition drawn (null for an initial-state arrow). */
  transition: ChartTransition | null;
  points: { x: number; y: number }[];
  label: (Box & { text: string }) | null;
}

export interface ChartLayout {
  width: number;
  height: number;
  states: StateBox[];
  initials: Box[];
  anyState: Box | null;
  edges: EdgeLayout[];
  /** The root's own lines (entry actions, transitions from anywhere that stay put), shown above the chart. */
  rootLines: string[];
}

/** Text widths in px at the chart's font; a browser measures, a test estimates. */
export type Measure = (text: string, bold?: boolean) => number;

export const LINE = 15;
const PAD = 8;
const INITIAL = 10;

const toElkId = (path: string) => `s:${path}`;

/**
 * A compact chart (the live viewer) names events and guards only; the full one (the design
 * review) adds every action, and each state's entry and exit actions.
 */
export type Detail = 'compact' | 'full';

const labelOf = (t: ChartTransition, detail: Detail) => transitionLabel(detail === 'full' ? t : { ...t, actions: [] });

function linesOf(
  model: ChartModel,
  state: ChartState,
  detail: Detail,
): { lines: string[]; transitions: (ChartTransition | null)[] } {
  const lines: string[] = [];
  const transitions: (ChartTransition | null)[] = [];
  if (detail === 'full') {
    for (const a of state.entry) (lines.push(`entry / ${a}`), transitions.push(null));
    for (const a of state.exit) (lines.push(`exit / ${a}`), transitions.push(null));
  }
  for (const t of model.transitions)
    if (t.source === state.path && t.targets.length === 0) (lines.push(labelOf(t, detail)), transitions.push(t));
  return { lines, transitions };
}

/** `elk`: the browser's runs in a Web Worker (chart-svg.tsx), a test's in process. */
export async function layoutChart(model: ChartModel, measure: Measure, elk: ELK, detail: Detail): Promise<ChartLayout> {
  const extra = new Map<string, { lines: string[]; transitions: (ChartTransition | null)[] }>();
  const node = (state: ChartState): ElkNode => {
    const { lines, transitions } = linesOf(model, state, detail);
    extra.set(state.path, { lines, transitions });
    const textWidth = Math.max(measure(state.key, true), ...lines.map((l) => measure(l)));
    const header = LINE * (1 + lines.length) + PAD;
    if (state.children.length === 0)
      return { id: toElkId(state.path), width: textWidth + 2 * PAD, height: header + PAD };
    const children = state.children.map((c) => node(model.states.get(c)!));
    if (state.initial) children.unshift({ id: `i:${state.path}`, width: INITIAL, height: INITIAL });
    return {
      id: toElkId(state.path),
      children,
      layoutOptions: {
        'elk.padding': `[top=${header + PAD},left=${PAD * 2},bottom=${PAD * 2},right=${PAD * 2}]`,
        'elk.nodeSize.constraints': 'MINIMUM_SIZE',
        'elk.nodeSize.minimum': `(${textWidth + 2 * PAD}, ${header})`,
      },
    };
  };
  const root = model.states.get('')!;
  const children = root.children.map((c) => node(model.states.get(c)!));
  if (root.initial) children.unshift({ id: 'i:', width: INITIAL, height: INITIAL });
  const fromAnywhere = model.transitions.filter((t) => t.source === '' && t.targets.length);
  if (fromAnywhere.length)
    children.push({ id: 'any', width: measure('any state', true) + 2 * PAD, height: LINE + 2 * PAD });

  const edges: ElkExtendedEdge[] = [];
  const drawn = new Map<string, ChartTransition | null>();
  for (const s of model.states.values())
    if (s.initial) {
      edges.push({ id: `e:init:${s.path}`, sources: [`i:${s.path}`], targets: [toElkId(s.initial)] });
      drawn.set(`e:init:${s.path}`, null);
    }
  for (const t of model.transitions)
    t.targets.forEach((target, k) => {
      const id = `e:${t.id}:${k}`;
      const text = labelOf(t, detail);
      edges.push({
        id,
        sources: [t.source === '' ? 'any' : toElkId(t.source)],
        targets: [toElkId(target)],
        labels: [{ id: `l:${id}`, text, width: measure(text) + 4, height: LINE }],
      });
      drawn.set(id, t);
    });

  const graph: ElkNode = {
    id: 'root',
    children,
    edges,
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.edgeRouting': 'SPLINES',
      'elk.layered.spacing.nodeNodeBetweenLayers': '40',
      'elk.spacing.nodeNode': '30',
      'elk.spacing.edgeLabel': '4',
      'elk.spacing.edgeEdge': '12',
      'elk.edgeLabels.inline': 'false',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.json.edgeCoords': 'ROOT',
      'elk.json.shapeCoords': 'ROOT',
      'elk.padding': '[top=12,left=12,bottom=12,right=12]',
    },
  };
  const laid = await elk.layout(graph);

  const states: StateBox[] = [];
  const initials: Box[] = [];
  let anyState: Box | null = null;
  const collect = (n: ElkNode): void => {
    const box = { x: n.x ?? 0, y: n.y ?? 0, width: n.width ?? 0, height: n.height ?? 0 };
    if (n.id.startsWith('s:')) {
      const path = n.id.slice(2);
      const { lines, transitions } = extra.get(path)!;
      states.push({ ...box, path, state: model.states.get(path)!, lines, lineTransitions: transitions });
    } else if (n.id.startsWith('i:')) initials.push(box);
    else if (n.id === 'any') anyState = box;
    for (const c of n.children ?? []) collect(c);
  };
  for (const c of laid.children ?? []) collect(c);

  const edgeLayouts: EdgeLayout[] = [];
  const collectEdges = (n: ElkNode): void => {
    for (const e of (n.edges ?? []) as ElkExtendedEdge[]) {
      const section = e.sections?.[0];
      if (!section) continue;
      const label = e.labels?.[0];
      edgeLayouts.push({
        id: e.id,
        transition: drawn.get(e.id) ?? null,
        points: [section.startPoint, ...(section.bendPoints ?? []), section.endPoint],
        label: label
          ? {
              x: label.x ?? 0,
              y: label.y ?? 0,
              width: label.width ?? 0,
              height: label.height ?? 0,
              text: label.text ?? '',
            }
          : null,
      });
    }
    for (const c of n.children ?? []) collectEdges(c);
  };
  collectEdges(laid);

  return {
    width: laid.width ?? 0,
    height: laid.height ?? 0,
    states,
    initials,
    anyState,
    edges: edgeLayouts,
    rootLines: linesOf(model, root, detail).lines,
  };
}

/** One layout per chart and detail, however many views draw it. */
const cache = {
  compact: new WeakMap<ChartModel, Promise<ChartLayout>>(),
  full: new WeakMap<ChartModel, Promise<ChartLayout>>(),
};
export function chartLayout(model: ChartModel, measure: Measure, elk: ELK, detail: Detail): Promise<ChartLayout> {
  let laid = cache[detail].get(model);
  if (!laid) {
    laid = layoutChart(model, measure, elk, detail);
    cache[detail].set(model, laid);
  }
  return laid;
}
