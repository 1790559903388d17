import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import fc from 'fast-check';
import { jsonForm } from '../../src/persistence/json-form.js';
import type { KeyOrder } from '../../src/persistence/json-form-program.js';
import { RunView } from '../../src/domain/projections.js';
import { eventCatalog } from '../../src/domain/events.js';
import { runView } from '../support/units.js';

/** The writer's one promise: a string only when zod accepts the value and its parsed copy has exactly that JSON. */
function expectSound(schema: z.ZodType, value: unknown, keyOrder: KeyOrder = 'schema'): string | false {
  const json = jsonForm(schema, keyOrder)(value);
  if (json !== false) {
    const parsed = schema.safeParse(value);
    expect(parsed.success).toBe(true);
    expect(json).toBe(JSON.stringify(parsed.success ? parsed.data : undefined));
  }
  return json;
}

describe('jsonForm', () => {
  it('writes the JSON of a row already in its parsed form, as zod would', () => {
    const row = runView('thr_a', 1);
    expect(expectSound(RunView, row)).toBe(JSON.stringify(row));
    const payload = {
      threadId: 'thr_a',
      runId: 'run_1',
      from: 'starting',
      to: 'running',
      reason: 'a "quoted"\n reason',
    };
    expect(expectSound(eventCatalog['run.status-changed'], payload)).toBe(JSON.stringify(payload));
  });

  it('is not sure (leaves it to zod) when zod would refuse, strip, reorder or fill in', () => {
    const row = runView('thr_a', 1);
    const { error: _error, ...withoutDefault } = row;
    const { id, ...rest } = row;
    const cases: unknown[] = [
      { ...row, extra: 1 }, // stripped by zod
      { ...rest, id }, // keys out of the schema's order
      withoutDefault, // zod fills in `error: null`
      { ...row, ordinal: 1.5 },
      { ...row, ordinal: 0 },
      { ...row, id: 'run with spaces' },
      { ...row, id: '' },
      { ...row, status: 'exploded' },
      { ...row, model: undefined },
      { ...row, queuePosition: Number.NaN },
      new Date(0),
      null,
      [row],
    ];
    for (const value of cases) expect(expectSound(RunView, value)).toBe(false);
  });

  it('follows zod through unions, records, optionals and unknown parts', () => {
    const schema = z.object({
      answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).nullable(),
      shape: z.discriminatedUnion('type', [
        z.object({ type: z.literal('a'), n: z.number().int() }),
        z.object({ type: z.literal('b'), s: z.string() }),
      ]),
      note: z.string().optional(),
      detail: z.unknown(),
    });
    expect(
      expectSound(schema, {
        answers: { q: 'x', r: ['y', 'z'] },
        shape: { type: 'b', s: 'é\u2028' },
        detail: { at: new Date(0) },
      }),
    ).not.toBe(false);
    expect(expectSound(schema, { answers: null, shape: { type: 'a', n: 2 }, note: 'n', detail: undefined })).not.toBe(
      false,
    );
    expect(expectSound(schema, { answers: { q: 5 }, shape: { type: 'a', n: 2 }, detail: 1 })).toBe(false);
    expect(expectSound(schema, { answers: null, shape: { type: 'c' }, detail: 1 })).toBe(false);
  });

  it('never promises more than zod gives, whatever the value', () => {
    const schema = z.object({
      id: z
        .string()
        .min(1)
        .max(20)
        .regex(/^[A-Za-z0-9_.:-]+$/),
      n: z.number().int().nonnegative().nullable(),
      tags: z.array(z.enum(['x', 'y'])).max(3),
      flag: z.boolean().default(false),
      meta: z.record(z.string(), z.unknown()).optional(),
    });
    fc.assert(
      fc.property(
        fc.record(
          {
            id: fc.string(),
            n: fc.oneof(fc.integer(), fc.double(), fc.constant(null)),
            tags: fc.array(fc.constantFrom('x', 'y', 'z')),
            flag: fc.boolean(),
            meta: fc.dictionary(fc.string(), fc.jsonValue()),
          },
          { requiredKeys: [] },
        ),
        (value) => {
          expectSound(schema, value);
          expectSound(schema, value, 'any');
          expectSound(schema, Object.fromEntries(Object.entries(value).reverse()), 'any');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('with any key order, writes zod’s JSON (in the schema’s order) for keys in any order, and is no looser', () => {
    const row = runView('thr_a', 1);
    const reversed = Object.fromEntries(Object.entries(row).reverse());
    expect(expectSound(RunView, reversed)).toBe(false);
    expect(expectSound(RunView, reversed, 'any')).toBe(JSON.stringify(row));
    const { error: _error, ...withoutDefault } = row;
    for (const value of [
      { ...reversed, extra: 1 },
      withoutDefault,
      { ...reversed, ordinal: 0 },
      { ...row, model: undefined },
    ])
      expect(expectSound(RunView, value, 'any')).toBe(false);
  });

  it('never promises more than zod gives through numbers, unions, records and escaped keys', () => {
    const atom = fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.integer({ min: -4, max: 6 }),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
    );
    const kind = z.discriminatedUnion('type', [
      z.object({ type: z.literal('n'), n: z.number().int().min(-2).lt(5) }),
      z.object({ type: z.literal(1), list: z.array(z.union([z.string(), z.number(), z.null()])).min(1) }),
    ]);
    const cases: [z.ZodType, fc.Arbitrary<unknown>][] = [
      [z.number().int().min(-2).lt(5), fc.oneof(fc.integer({ min: -5, max: 8 }), fc.double())],
      [z.number().gt(-1).lte(2), fc.oneof(fc.integer({ min: -3, max: 4 }), fc.double({ min: -3, max: 4 }))],
      [
        kind,
        fc.oneof(
          fc.record({ type: fc.constantFrom('n', 1, 'x'), n: atom }, { requiredKeys: ['type'] }),
          fc.record({ type: fc.constantFrom(1, 'n'), list: fc.array(atom, { maxLength: 3 }) }),
        ),
      ],
      [
        z.union([z.string().length(2), z.array(z.boolean()), z.object({ x: z.unknown() })]).optional(),
        fc.oneof(atom, fc.array(atom, { maxLength: 2 }), fc.record({ x: fc.anything() }), fc.anything()),
      ],
      [
        z.record(z.string(), z.object({ deep: z.enum(['p', 'q']).default('p') })),
        fc.dictionary(
          fc.string({ maxLength: 3 }),
          fc.oneof(fc.record({ deep: fc.constantFrom('p', 'q', 'r') }, { requiredKeys: [] }), atom),
        ),
      ],
      [
        z.object({ 'a "key"': z.string().max(3).nullable(), '\u2028': z.boolean().optional() }),
        fc.record(
          { 'a "key"': fc.oneof(fc.string({ maxLength: 5 }), fc.constant(null), fc.integer()), '\u2028': atom },
          { requiredKeys: [] },
        ),
      ],
    ];
    for (const [schema, values] of cases)
      fc.assert(
        fc.property(values, (value) => {
          expectSound(schema, value);
          expectSound(schema, value, 'any');
        }),
        { numRuns: 1_000 },
      );
    // A literal JSON cannot hold is left to zod, which then refuses the unit as ever.
    expect(expectSound(z.object({ n: z.literal(1n) }), { n: 1n })).toBe(false);
    // Values in the parsed form are written, not left to zod.
    const parsed = { type: 1, list: ['s', 2, null] };
    expect(expectSound(kind, parsed)).toBe(JSON.stringify(parsed));
    expect(expectSound(z.object({ 'a "key"': z.string() }), { 'a "key"': 'v' })).toBe('{"a \\"key\\"":"v"}');
  });
});
