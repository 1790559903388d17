import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { allMachines } from '../../src/machines/index.js';

interface NodeLike {
  path: string[];
  entry: readonly unknown[];
  exit: readonly unknown[];
  transitions: Map<string, readonly { actions: readonly unknown[] }[]>;
  always?: readonly { actions: readonly unknown[] }[];
  states: Record<string, NodeLike>;
}

/** An action named in setup(): a string or `{ type, params }`; an inline action creator is a function. */
const nameOf = (action: unknown): string | null => {
  if (typeof action === 'string') return action;
  if (typeof action === 'object' && action !== null && 'type' in action && typeof action.type === 'string') return action.type;
  return null;
};

/** Every action a machine runs, with where it runs: entry, exit, and on each transition. */
function actionsOf(machine: AnyStateMachine): { where: string; action: unknown }[] {
  const found: { where: string; action: unknown }[] = [];
  const visit = (node: NodeLike): void => {
    const at = `${machine.id}.${node.path.join('.') || '(root)'}`;
    for (const action of node.entry) found.push({ where: `${at} entry`, action });
    for (const action of node.exit) found.push({ where: `${at} exit`, action });
    for (const [event, transitions] of node.transitions) for (const t of transitions) for (const action of t.actions) found.push({ where: `${at} on ${event}`, action });
    for (const t of node.always ?? []) for (const action of t.actions) found.push({ where: `${at} always`, action });
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return found;
}

describe('machine actions', () => {
  it.each(allMachines)('$name names every action it runs in setup(), so its chart can say what each transition does', ({ machine }) => {
    const implemented = new Set(Object.keys(machine.implementations.actions));
    const unnamed = actionsOf(machine)
      .filter(({ action }) => {
        const name = nameOf(action);
        return name === null || !implemented.has(name);
      })
      .map(({ where }) => where);
    expect(unnamed).toEqual([]);
  });
});
