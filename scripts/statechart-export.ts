import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { actionNames, guardLabel } from '../src/machines/chart-labels.js';

/**
 * Turns a machine's definition into text for design reviews: a Mermaid
 * `stateDiagram-v2` and a Graphviz DOT graph. Both are derived from the machine object
 * itself, so they cannot drift from the code (`npm run statecharts:check` enforces it).
 */

interface Edge {
  source: string;
  target: string;
  label: string;
}

const actionLabel = (actions: readonly unknown[] | undefined): string => actionNames(actions).join(', ');

/** A mermaid-safe id for a state node path. */
const sid = (node: AnyStateNode): string => (node.path.length === 0 ? 'root' : node.path.join('__'));

function collectEdges(node: AnyStateNode, edges: Edge[]): void {
  for (const [eventType, transitions] of node.transitions) {
    for (const t of transitions) {
      const guard = guardLabel(t.guard);
      const label = `${eventType === '' ? 'always' : eventType.startsWith('xstate.done.state') ? 'done' : eventType}${guard ? ` [${guard}]` : ''}`;
      // A transition without a target stays put but still acts (an acknowledgement, a steer): draw it as a loop.
      const targets = t.target?.length ? t.target : [node];
      const acts = actionLabel(t.actions);
      for (const target of targets)
        edges.push({
          source: sid(node),
          target: sid(target),
          label: t.target?.length ? label : `${label}${acts ? ` / ${acts}` : ''}`,
        });
    }
  }
  for (const t of node.always ?? []) {
    const guard = guardLabel(t.guard);
    for (const target of t.target ?? [])
      edges.push({ source: sid(node), target: sid(target), label: `always${guard ? ` [${guard}]` : ''}` });
  }
  for (const child of Object.values(node.states)) collectEdges(child, edges);
}

/**
 * Transitions a reviewer could not read: one that stays put with no named action (it does
 * something the chart cannot say), or one behind an anonymous inline guard.
 */
export function unlabelledTransitions(machine: AnyStateMachine): string[] {
  const found: string[] = [];
  const visit = (node: AnyStateNode): void => {
    for (const [eventType, transitions] of node.transitions) {
      for (const t of transitions) {
        const where = `${machine.id}.${node.path.join('.') || '(root)'} on ${eventType || 'always'}`;
        if (!t.target?.length && (t.actions ?? []).length && !actionLabel(t.actions))
          found.push(`${where}: an anonymous action`);
        if (t.guard && guardLabel(t.guard) === 'guard') found.push(`${where}: an anonymous guard`);
      }
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return found;
}

function edgesOf(machine: AnyStateMachine): Edge[] {
  const edges: Edge[] = [];
  collectEdges(machine.root, edges);
  // The same event from the same state to the same target under several guards is one arrow.
  const seen = new Set<string>();
  return edges.filter((e) => {
    const key = `${e.source}>${e.target}>${e.label}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A guard as JSON: a named one as xstate writes it (`"name"` or `{ type, params }`); `and`,
 * `or` and `not`, which are functions JSON drops, as `{ type: "xstate.and", guards }`.
 */
export function guardJson(guard: unknown): unknown {
  if (typeof guard !== 'function') return guard;
  const g = guard as { name?: string; guards?: unknown[]; guard?: unknown };
  if (g.guards) return { type: g.name === 'or' ? 'xstate.or' : 'xstate.and', guards: g.guards.map(guardJson) };
  if (g.name === 'not') return { type: 'xstate.not', guards: [guardJson(g.guard)] };
  return { type: g.name || 'guard' };
}

interface JsonNode {
  always?: unknown[];
  states: Record<string, JsonNode>;
}

/**
 * The machine's definition as JSON: xstate's `toJSON()` with what it leaves out put back.
 * It drops eventless transitions (so `run-attempt`'s `ended` read as a dead end) and
 * composite guards (so a guarded transition read as unguarded); here each state lists its
 * `always` transitions, and every guard is written (`guardJson`). Written from a copy:
 * `toJSON()` hands out the machine's own transition objects.
 */
export function toJson(machine: AnyStateMachine): unknown {
  const json = JSON.parse(
    JSON.stringify(machine.toJSON(), (key, value: unknown) => (key === 'guard' ? guardJson(value) : value)),
  ) as JsonNode;
  const patch = (node: AnyStateNode, out: JsonNode): void => {
    if (node.always?.length)
      out.always = node.always.map((t) => ({
        target: (t.target ?? []).map((target) => `#${target.id}`),
        ...(t.guard ? { guard: guardJson(t.guard) } : {}),
        actions: t.actions,
        source: `#${node.id}`,
        reenter: t.reenter,
        eventType: '',
      }));
    for (const [key, child] of Object.entries(node.states)) patch(child, out.states[key]!);
  };
  patch(machine.root, json);
  return json;
}

const esc = (s: string) => s.replace(/"/g, "'").replace(/:/g, '∶');

export function toMermaid(machine: AnyStateMachine): string {
  const lines = ['stateDiagram-v2'];
  const declare = (node: AnyStateNode, indent: string): void => {
    const children = Object.values(node.states);
    const initial = node.initial?.target?.[0];
    if (initial) lines.push(`${indent}[*] --> ${sid(initial)}`);
    for (const child of children) {
      lines.push(`${indent}state "${child.key}" as ${sid(child)}`);
      if (Object.keys(child.states).length) {
        lines.push(`${indent}state ${sid(child)} {`);
        declare(child, `${indent}  `);
        lines.push(`${indent}}`);
      }
      if (child.type === 'final') lines.push(`${indent}${sid(child)} --> [*]`);
    }
  };
  declare(machine.root, '  ');
  for (const e of edgesOf(machine)) {
    if (e.source === 'root') continue;
    lines.push(`  ${e.source} --> ${e.target}: ${esc(e.label)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function toDot(machine: AnyStateMachine): string {
  const lines = [
    `digraph "${machine.id}" {`,
    '  compound=true; rankdir=LR; node [shape=box, style=rounded, fontname="Helvetica"]; edge [fontname="Helvetica", fontsize=10];',
  ];
  const declare = (node: AnyStateNode, indent: string): void => {
    for (const child of Object.values(node.states)) {
      if (Object.keys(child.states).length) {
        lines.push(`${indent}subgraph "cluster_${sid(child)}" { label="${child.key}"; style=rounded;`);
        lines.push(`${indent}  "${sid(child)}" [label="${child.key}", shape=point];`);
        declare(child, `${indent}  `);
        lines.push(`${indent}}`);
      } else {
        lines.push(
          `${indent}"${sid(child)}" [label="${child.key}"${child.type === 'final' ? ', peripheries=2' : ''}];`,
        );
      }
    }
  };
  declare(machine.root, '  ');
  const initial = machine.root.initial?.target?.[0];
  if (initial)
    lines.push(
      `  "__start" [shape=circle, label="", width=0.2, style=filled, fillcolor=black];`,
      `  "__start" -> "${sid(initial)}";`,
    );
  for (const e of edgesOf(machine)) {
    if (e.source === 'root') continue;
    lines.push(`  "${e.source}" -> "${e.target}" [label="${e.label.replace(/"/g, "'")}"];`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
