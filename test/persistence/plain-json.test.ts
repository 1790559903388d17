import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { plainJson } from '../../src/persistence/plain-json.js';

/** The outcome of writing `value`: its JSON, or the kind of error thrown. */
function outcome(write: (value: unknown) => string | undefined, value: unknown): { json?: string; error?: string } {
  try {
    return { json: write(value) };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

const same = (value: unknown): void => {
  expect(outcome(plainJson, value)).toEqual(outcome(JSON.stringify, value));
};

describe('plainJson', () => {
  it('writes exactly what JSON.stringify writes, whatever the value', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withBoxedValues: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withNullPrototype: true,
          withObjectString: true,
          withSparseArray: true,
          withTypedArray: true,
          withUnicodeString: true,
        }),
        same,
      ),
      { numRuns: 2_000 },
    );
  });

  it('agrees on the values JSON treats specially', () => {
    const withToJson = { a: 1, toJSON: () => 'replaced' };
    const array = Object.assign([1, 2], { toJSON: () => 'array' });
    class Listed extends Array<number> {
      toJSON() {
        return 'listed';
      }
    }
    const accessor = Object.defineProperty({ b: 1 }, 'a', { get: () => 'got', enumerable: true });
    const hidden = Object.defineProperty({ b: 1 }, 'a', { value: 'hidden', enumerable: false });
    for (const value of [
      undefined,
      () => 1,
      Symbol('s'),
      -0,
      Number.NaN,
      -Infinity,
      'a "quoted"\n\u2028 line \ud800',
      { a: undefined, b: () => 1, [Symbol('c')]: 1, 2: 'two', 1: 'one' },
      [undefined, () => 1, , 3], // eslint-disable-line no-sparse-arrays
      withToJson,
      { nested: withToJson },
      array,
      Listed.from([1, 2]),
      accessor,
      hidden,
      new Date(0),
      Object.create({ inherited: 1 }),
      1n,
      { big: 1n },
    ])
      same(value);
  });

  it('hands very deep and cyclic values to JSON.stringify, which writes or refuses them as ever', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 500; i++) deep = { next: [deep] };
    same(deep);
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { again: cycle };
    expect(() => plainJson(cycle)).toThrow(TypeError);
  });

  it('leaves out what a polluted Object.prototype adds, as JSON.stringify does', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 'yes';
    try {
      same({ a: 1, inner: { b: [2] } });
      expect(plainJson({ a: 1 })).toBe('{"a":1}');
    } finally {
      delete proto.polluted;
    }
  });
});
