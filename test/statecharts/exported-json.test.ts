import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import { allMachines } from '../../src/machines/index.js';
import { guardLabel } from '../../src/machines/chart-labels.js';
import { toJson } from '../../scripts/statechart-export.js';

interface JsonTransition {
  source: string;
  target?: string[];
  guard?: unknown;
  eventType: string;
}

interface JsonNode {
  transitions: JsonTransition[];
  always?: JsonTransition[];
  states: Record<string, JsonNode>;
}

/** One transition as a reviewer reads it: from, on, to, under. */
const line = (source: string, eventType: string, targets: string[], guard: unknown) =>
  `${source} on ${eventType || 'always'} -> ${targets.join(',') || '(stays)'} [${guardLabel(guard)}]`;

/** Every transition of the machine, eventless ones included, from its state nodes. */
function fromMachine(node: AnyStateNode, out: string[] = []): string[] {
  for (const [eventType, transitions] of node.transitions)
    for (const t of transitions)
      out.push(
        line(
          `#${node.id}`,
          eventType,
          (t.target ?? []).map((target) => `#${target.id}`),
          t.guard,
        ),
      );
  for (const t of node.always ?? [])
    out.push(
      line(
        `#${node.id}`,
        '',
        (t.target ?? []).map((target) => `#${target.id}`),
        t.guard,
      ),
    );
  for (const child of Object.values(node.states)) fromMachine(child, out);
  return out;
}

/** Each transition's guard as the machine holds it (a composite one is a function). */
function guardsOf(node: AnyStateNode, out: unknown[] = []): unknown[] {
  for (const transitions of node.transitions.values()) for (const t of transitions) out.push(t.guard);
  for (const t of node.always ?? []) out.push(t.guard);
  for (const child of Object.values(node.states)) guardsOf(child, out);
  return out;
}

/** Every transition the exported JSON holds. */
function fromJson(node: JsonNode, out: string[] = []): string[] {
  for (const t of [...node.transitions, ...(node.always ?? [])])
    out.push(line(t.source, t.eventType, t.target ?? [], t.guard));
  for (const child of Object.values(node.states)) fromJson(child, out);
  return out;
}

describe('the exported statechart JSON', () => {
  it.each(allMachines)('$name: holds every transition with its guard, eventless ones and composite guards included', ({ name, machine }) => {
    const json = JSON.parse(readFileSync(new URL(`../../statecharts/${name}.json`, import.meta.url), 'utf8')) as JsonNode;
    expect(fromJson(json).sort()).toEqual(fromMachine(machine.root).sort());
  });

  it.each(allMachines)('$name: writing it leaves the machine as it was (its guards as they were)', ({ machine }) => {
    const guards = guardsOf(machine.root);
    toJson(machine);
    expect(guardsOf(machine.root)).toEqual(guards);
  });

  it('writes run-attempt ending by its eventless transitions, and a steer under its whole guard', () => {
    const attempt = JSON.parse(readFileSync(new URL('../../statecharts/run-attempt.json', import.meta.url), 'utf8')) as JsonNode;
    expect(fromJson(attempt).filter((l) => l.includes(' on always '))).toEqual([
      '#runAttempt.ended on always -> #runAttempt.completed [endsCompleted]',
      '#runAttempt.ended on always -> #runAttempt.interrupted [endsInterrupted]',
      '#runAttempt.ended on always -> #runAttempt.failed []',
    ]);
    const supervisor = JSON.parse(
      readFileSync(new URL('../../statecharts/thread-supervisor.json', import.meta.url), 'utf8'),
    ) as JsonNode;
    expect(fromJson(supervisor)).toContain(
      '#threadSupervisor.active.busy on SEND -> (stays) [modeIs(steer_active|auto) ∧ targetsActiveRun ∧ canSteerNatively]',
    );
  });
});
