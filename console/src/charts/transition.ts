import type { ChartModel, ChartTransition } from './chart-model.js';

/** An XState state value: a leaf's key, or a compound state's key to its child's value. */
export type StateValue = string | { [key: string]: StateValue };

/** The paths of the active leaf states (`{ live: { running: 'working' } }` -> `live.running.working`). */
export function leafPaths(value: StateValue, prefix = ''): string[] {
  if (typeof value === 'string') return [prefix ? `${prefix}.${value}` : value];
  return Object.entries(value).flatMap(([key, child]) => leafPaths(child, prefix ? `${prefix}.${key}` : key));
}

/** A state and the states around it: `live.running.working` is in `live.running`, `live` and the root. */
export function ancestorsOf(path: string): string[] {
  const parts = path ? path.split('.') : [];
  return parts.map((_, i) => parts.slice(0, parts.length - i).join('.')).concat('');
}

/** Every state active with these leaves (the leaves, their ancestors, the root). */
export function activeStates(value: StateValue): Set<string> {
  return new Set(leafPaths(value).flatMap(ancestorsOf));
}

/** The leaf a target enters: down its initial states. */
export function enteredLeaf(model: ChartModel, target: string): string {
  let path = target;
  for (let i = 0; i < 50; i++) {
    const initial = model.states.get(path)?.initial;
    if (!initial) return path;
    path = initial;
  }
  return path;
}

export interface TakenPath {
  /** The transitions from the previous state to the current one, in order: the last is the one just taken. */
  transitions: ChartTransition[];
  /** Every transition that could have been that last step (the same move on another event or guard). */
  last: ChartTransition[];
}

/**
 * How the actor got from `prev` to `curr`: the shortest chain of transitions on the chart
 * whose source is active in a state and whose target enters the next (an actor can move
 * several steps between two reads, as a run through the in-memory barrier steps). Null
 * when nothing changed or the chart has no such path (a migrated snapshot).
 */
export function takenPath(model: ChartModel, prev: StateValue, curr: StateValue): TakenPath | null {
  const from = leafPaths(prev)[0];
  const to = leafPaths(curr)[0];
  if (from === undefined || to === undefined || from === to) return null;
  const bySource = new Map<string, ChartTransition[]>();
  for (const t of model.transitions) {
    if (!t.targets.length) continue;
    bySource.set(t.source, [...(bySource.get(t.source) ?? []), t]);
  }
  // A compound state's `done` fires only once its final child is reached.
  const outOf = (leaf: string, source: string) =>
    (bySource.get(source) ?? []).filter(
      (t) =>
        t.kind !== 'done' || (model.states.get(leaf)?.type === 'final' && model.states.get(leaf)?.parent === source),
    );
  const via = new Map<string, { leaf: string; t: ChartTransition } | null>([[from, null]]);
  const queue = [from];
  while (queue.length) {
    const leaf = queue.shift()!;
    if (leaf === to) break;
    for (const source of ancestorsOf(leaf)) {
      for (const t of outOf(leaf, source)) {
        const next = enteredLeaf(model, t.targets[0]!);
        if (via.has(next)) continue;
        via.set(next, { leaf, t });
        queue.push(next);
      }
    }
  }
  if (!via.has(to)) return null;
  const transitions: ChartTransition[] = [];
  for (let step = via.get(to); step; step = via.get(step.leaf)) transitions.unshift(step.t);
  const before = via.get(to)!.leaf;
  const last = ancestorsOf(before).flatMap((source) =>
    outOf(before, source).filter((t) => enteredLeaf(model, t.targets[0]!) === to),
  );
  return { transitions, last };
}
