import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createActor } from 'xstate';
import { getShortestPaths, getSimplePaths } from '@xstate/graph';
import { Store } from '../../src/persistence/store.js';
import { allMachines } from '../../src/machines/index.js';
import { isSettled } from '../../src/machines/status-actions.js';
import type { MachineOutput } from '../../src/machines/outputs.js';
import { tempDir } from '../support/temp.js';
import { persistedSnapshotOf } from '../../src/actors/persisted-snapshot.js';
import { plainJson } from '../../src/persistence/plain-json.js';
import { machineModels, type MachineModel, type StepRecord } from './models.js';

type Path = { steps: { event: { type: string }; state: { value: unknown } }[] };

/** Shortest paths to every abstract state, plus simple paths to every final or resting state. */
function pathsOf(model: MachineModel): Path[] {
  const common = { input: model.input, events: model.events as never };
  const shortest = getShortestPaths(model.machine, { ...common, serializeState: model.serialize as never }) as unknown as Path[];
  const simple = getSimplePaths(model.machine, {
    ...common,
    serializeState: model.serializeCoarse as never,
    toState: isSettled as never,
  }) as unknown as Path[];
  const seen = new Set<string>();
  return [...shortest, ...simple].filter((p) => {
    const key = JSON.stringify(p.steps.map((s) => s.event));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const version = (model: MachineModel) => allMachines.find((m) => m.machine === model.machine)!.version;

describe.each(machineModels)('model-based: $name', (model) => {
  it('every generated path drives the persisted actor, holds the invariants, and restores equal at every step', () => {
    const { dir, cleanup } = tempDir();
    const store = Store.open(join(dir, 'model.sqlite'));
    try {
      const paths = pathsOf(model);
      expect(paths.length).toBeGreaterThan(0);
      let steps = 0;
      paths.forEach((path, p) => {
        const entityId = `${model.name}_path_${p}`;
        const live = createActor(model.machine, { input: model.input });
        let pending: MachineOutput[] = [];
        live.on('*', (o) => void pending.push(o as MachineOutput));
        live.start();
        pending = [];
        const history: StepRecord[] = [];
        for (const step of path.steps.slice(1)) {
          const before = live.getSnapshot();
          live.send(step.event);
          const after = live.getSnapshot();
          // The graph's prediction is what the real actor did.
          expect(after.value, `${model.name} path ${p}: ${step.event.type}`).toEqual(step.state.value);
          history.push({ event: step.event as never, before: before as never, after: after as never, outputs: pending });
          pending = [];
          model.invariant(history);

          // Baton's own persisted form is XState's, key for key and in its order.
          const persisted = persistedSnapshotOf(live.getSnapshot());
          expect(persisted).toEqual(live.getPersistedSnapshot());
          expect(plainJson(persisted)).toBe(plainJson(live.getPersistedSnapshot()));

          store.commit({ snapshots: [{ entityId, kind: model.kind, threadId: 'thr_1', machineId: model.machine.id, machineVersion: version(model), snapshot: persisted }] });
          const row = store.entities.get(entityId)!;
          const restored = createActor(model.machine, { snapshot: row.snapshot as never }).start();
          expect(restored.getPersistedSnapshot()).toEqual(live.getPersistedSnapshot());
          expect(restored.getSnapshot().status).toBe(live.getSnapshot().status);
          restored.stop();
          steps += 1;
        }
        live.stop();
      });
      expect(steps).toBeGreaterThan(0);
    } finally {
      store.close();
      cleanup();
    }
  });
});
