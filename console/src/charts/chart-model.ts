import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { actionNames, guardLabel } from '../../../src/machines/chart-labels.js';
import { timersOf, type DurableTimer } from './timers.js';

/**
 * A machine as a reviewer reads it: its states by path, and every transition with its
 * event, guard, actions and timer in words. Built from the machine definition itself,
 * bundled into the page, walking the state nodes as `npm run statecharts` does when it
 * writes statecharts/ (test/console/statechart-model.test.ts checks every edge against
 * the exported .mmd).
 */

export type StateType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
export type TransitionKind = 'event' | 'always' | 'done' | 'after' | 'timer';

export interface ChartState {
  /** Dotted path from the root (`live.running.working`); the root is ''. */
  path: string;
  key: string;
  type: StateType;
  parent: string | null;
  children: string[];
  /** The child entered by default (its path), for a compound state. */
  initial: string | null;
  entry: string[];
  exit: string[];
}

export interface ChartTransition {
  /** `<source path>#<n>`, unique in the chart. */
  id: string;
  source: string;
  /** Target paths; none for a transition that stays put and only acts. */
  targets: string[];
  /** The raw event type (`''` for always). */
  eventType: string;
  /** How it reads: `START`, `always`, `done`, `after 500ms`. */
  event: string;
  kind: TransitionKind;
  guard: string | null;
  actions: string[];
  /** The timer that fires it, in words (an XState delay, or one of Baton's durable timers). */
  timer: string | null;
}

export interface ChartModel {
  /** The chart's file name in statecharts/ (`run-attempt`). */
  name: string;
  machineId: string;
  version: number;
  summary: string;
  states: Map<string, ChartState>;
  transitions: ChartTransition[];
  timers: DurableTimer[];
}

export const pathOf = (node: AnyStateNode): string => node.path.join('.');

function eventOf(eventType: string): { event: string; kind: TransitionKind; delay: string | null } {
  if (eventType === '') return { event: 'always', kind: 'always', delay: null };
  if (eventType.startsWith('xstate.done.state')) return { event: 'done', kind: 'done', delay: null };
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType);
  if (after) {
    const delay = /^\d+$/.test(after[1]!) ? `${after[1]}ms` : after[1]!;
    return { event: `after ${delay}`, kind: 'after', delay };
  }
  return { event: eventType, kind: 'event', delay: null };
}

export function chartModel(
  name: string,
  machine: AnyStateMachine,
  version: number,
  summary: string,
  timers: readonly DurableTimer[] = timersOf(name),
): ChartModel {
  const states = new Map<string, ChartState>();
  const transitions: ChartTransition[] = [];
  const visit = (node: AnyStateNode): void => {
    const path = pathOf(node);
    const children = Object.values(node.states) as AnyStateNode[];
    const initial = node.initial?.target?.[0];
    states.set(path, {
      path,
      key: node.path.length ? node.key : machine.id,
      type: node.type,
      parent: node.parent ? pathOf(node.parent) : null,
      children: children.map(pathOf),
      initial: initial ? pathOf(initial) : null,
      entry: actionNames(node.entry),
      exit: actionNames(node.exit),
    });
    const own = [...node.transitions.values()].flat().concat(node.always ?? []);
    own.forEach((t, i) => {
      const eventType = String(t.eventType);
      const { event, kind, delay } = eventOf(eventType);
      const timer = timers.find((d) => d.event === eventType);
      transitions.push({
        id: `${path}#${i}`,
        source: path,
        targets: (t.target ?? []).map(pathOf),
        eventType,
        event: timer ? `${event} (timer ${timer.key})` : event,
        kind: timer ? 'timer' : kind,
        guard: guardLabel(t.guard) || null,
        actions: actionNames(t.actions),
        timer: delay
          ? `fires ${delay} after entering ${path || 'the machine'}`
          : timer
            ? `durable timer '${timer.key}': ${timer.due}; scheduled by ${timer.scheduledBy}, cancelled by ${timer.cancelledBy.join(', ')}`
            : null,
      });
    });
    children.forEach(visit);
  };
  visit(machine.root);
  return { name, machineId: machine.id, version, summary, states, transitions, timers: [...timers] };
}

/** `event [guard] / actions`, as a transition reads on the chart (a timer's event says so: `EXPIRE (timer expire)`). */
export function transitionLabel(t: ChartTransition): string {
  return `${t.event}${t.guard ? ` [${t.guard}]` : ''}${t.actions.length ? ` / ${t.actions.join(', ')}` : ''}`;
}
