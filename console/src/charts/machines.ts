import { allMachines, machinesByKind } from '../../../src/machines/index.js';
import { chartModel, type ChartModel } from './chart-model.js';

/**
 * Every machine's chart, built into the console from the machines themselves (what
 * `npm run statecharts` exports to statecharts/), so the console always draws the
 * machines this Baton runs.
 */
export const charts: readonly ChartModel[] = allMachines.map(({ name, machine, version, summary }) =>
  chartModel(name, machine, version, summary),
);

const byMachineId = new Map(charts.map((c) => [c.machineId, c]));

/** The chart an actor of this entity kind runs (null for a kind with no machine). */
export function chartOfKind(kind: string): ChartModel | null {
  const machine = (machinesByKind as Record<string, { id: string } | undefined>)[kind];
  return machine ? (byMachineId.get(machine.id) ?? null) : null;
}

/** How each kind is named in the viewer, in the order it lists them. */
export const kindTitles: Record<string, string> = {
  thread_supervisor: 'Thread supervisor',
  run: 'Runs',
  run_attempt: 'Run attempts',
  execution_node: 'Execution nodes',
  runtime_request: 'Runtime requests',
  provider_session: 'Provider sessions',
  provider_thread: 'Provider threads',
  context_transfer: 'Context transfers',
  context_handoff: 'Context handoffs',
};
