import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EntitySnapshotWrite, snapshotFieldsValid } from '../../src/persistence/commit-unit.js';
import { EntityKind } from '../../src/domain/entities.js';

/** Values near each field's edges: empty and plain strings, every kind, numbers around 1 and the safe-integer bound. */
const fieldValue = fc.oneof(
  fc.constantFrom(...EntityKind.options, '', 'run ', 'spaceship', null, undefined, 0, 1, -1, 1.5, 2 ** 53, NaN),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.anything(),
);

const write = fc.record({
  entityId: fieldValue,
  kind: fieldValue,
  threadId: fieldValue,
  machineId: fieldValue,
  machineVersion: fieldValue,
  snapshot: fc.anything(),
});

describe('snapshotFieldsValid', () => {
  it('passes only writes the schema accepts, with the fields as they are', () => {
    fc.assert(
      fc.property(write, (w) => {
        if (!snapshotFieldsValid(w as EntitySnapshotWrite)) return;
        const parsed = EntitySnapshotWrite.safeParse(w);
        expect(parsed.success).toBe(true);
        const { snapshot: _snapshot, ...fields } = parsed.data!;
        const { snapshot: _given, ...given } = w;
        expect(fields).toEqual(given);
      }),
      { numRuns: 5_000 },
    );
  });

  it('passes the writes the runtime makes, and refuses each bad field', () => {
    const good = {
      entityId: 'run_1',
      kind: 'run',
      threadId: 'thr_1',
      machineId: 'run',
      machineVersion: 1,
      snapshot: {},
    };
    expect(snapshotFieldsValid(good as EntitySnapshotWrite)).toBe(true);
    expect(snapshotFieldsValid({ ...good, threadId: null } as EntitySnapshotWrite)).toBe(true);
    for (const bad of [
      { entityId: '' },
      { kind: 'spaceship' },
      { threadId: '' },
      { machineId: 7 },
      { machineVersion: 0 },
      { machineVersion: 1.5 },
      { machineVersion: 2 ** 53 },
    ])
      expect(snapshotFieldsValid({ ...good, ...bad } as EntitySnapshotWrite)).toBe(false);
  });
});
