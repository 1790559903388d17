import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildPortableContext, minPortableChars, type PortableItem } from '../../src/context/portable-context.js';

const kinds = [
  'user_message',
  'assistant_message',
  'tool_call',
  'plan',
  'todo_list',
  'approval_request',
  'reasoning',
  'checkpoint',
  'system',
] as const;

/** A thread's items: runs in ascending order, each opened by its user message. */
const thread: fc.Arbitrary<PortableItem[]> = fc
  .array(
    fc.record({
      user: fc.string({ maxLength: 300 }),
      rolledBack: fc.boolean(),
      rest: fc.array(
        fc.record({
          kind: fc.constantFrom(...kinds),
          text: fc.string({ maxLength: 600 }),
          status: fc.constantFrom('completed', 'failed', 'pending'),
        }),
        { maxLength: 6 },
      ),
    }),
    { maxLength: 8 },
  )
  .map((runs) =>
    runs.flatMap((r, i) => [
      {
        runOrdinal: i + 1,
        kind: 'user_message',
        text: r.user,
        status: 'completed',
        data: {},
        rolledBack: r.rolledBack,
      },
      ...r.rest.map((x) => ({
        runOrdinal: i + 1,
        ...x,
        data: x.kind === 'plan' ? { steps: [{ text: 'step', status: 'pending' }] } : {},
        rolledBack: r.rolledBack,
      })),
    ]),
  );

const options = fc.record({
  maxChars: fc.integer({ min: minPortableChars, max: 6_000 }),
  mode: fc.oneof(
    fc.constant({ type: 'full' as const }),
    fc.integer({ min: 0, max: 9 }).map((n) => ({ type: 'delta' as const, sinceRunOrdinal: n })),
  ),
});

const runs = 200;

describe('the portable context builder', () => {
  it('is deterministic: the same items and options give the same context', () => {
    fc.assert(
      fc.property(thread, options, (items, o) => {
        expect(buildPortableContext(items, o)).toEqual(buildPortableContext(structuredClone(items), o));
      }),
      { numRuns: runs },
    );
  });

  it('is bounded: the text never exceeds maxChars, and chars is its length', () => {
    fc.assert(
      fc.property(thread, options, (items, o) => {
        const c = buildPortableContext(items, o);
        expect(c.text.length).toBeLessThanOrEqual(o.maxChars);
        expect(c.chars).toBe(c.text.length);
      }),
      { numRuns: runs },
    );
  });

  it('always tells the newest user message in scope (verbatim when it is short)', () => {
    fc.assert(
      fc.property(thread, options, (items, o) => {
        const since = o.mode.type === 'delta' ? o.mode.sinceRunOrdinal : 0;
        const newest = items.filter((i) => !i.rolledBack && i.runOrdinal > since && i.kind === 'user_message').at(-1);
        fc.pre(newest !== undefined && newest.text.length <= o.maxChars / 4);
        const c = buildPortableContext(items, o);
        expect(c.text).toContain(`[run ${newest!.runOrdinal}] User: ${newest!.text}`);
        expect(c.coveredRunOrdinals).toContain(newest!.runOrdinal);
      }),
      { numRuns: runs },
    );
  });

  it('keeps the newest, says how many it left out, and covers only runs in scope that are not rolled back', () => {
    fc.assert(
      fc.property(thread, options, (items, o) => {
        const c = buildPortableContext(items, o);
        const since = o.mode.type === 'delta' ? o.mode.sinceRunOrdinal : 0;
        const live = new Set(items.filter((i) => !i.rolledBack && i.runOrdinal > since).map((i) => i.runOrdinal));
        expect(c.coveredRunOrdinals.every((n) => live.has(n))).toBe(true);
        expect(c.coveredRunOrdinals).toEqual([...c.coveredRunOrdinals].sort((a, b) => a - b));
        expect(c.strategy).toBe(o.mode.type);
        if (c.omittedItems > 0) expect(c.text).toContain(`${c.omittedItems} older item(s) were left out`);
        // Nothing from a rolled-back run or from before the delta's start is told.
        for (const i of items.filter((x) => x.rolledBack || x.runOrdinal <= since))
          expect(c.text).not.toContain(`[run ${i.runOrdinal}] `);
      }),
      { numRuns: runs },
    );
  });

  it('tells the end of a long tool output, where a command says how it went', () => {
    const output = Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n');
    const items: PortableItem[] = [
      { runOrdinal: 1, kind: 'tool_call', text: 'npm test', status: 'failed', data: { output } },
    ];
    const { text } = buildPortableContext(items, { mode: { type: 'full' }, maxChars: 40_000 });
    expect(text).toContain('line 399');
    expect(text).not.toContain('line 1\n');
    expect(text).toMatch(/output: …\[\d+ earlier chars left out\]/);
  });

  it('tells everything when it fits: a short thread is told whole, in order', () => {
    const items: PortableItem[] = [
      { runOrdinal: 1, kind: 'user_message', text: 'hello', status: 'completed', data: {} },
      { runOrdinal: 1, kind: 'reasoning', text: 'private thoughts', status: 'completed', data: {} },
      { runOrdinal: 1, kind: 'assistant_message', text: 'hi there', status: 'completed', data: {} },
      { runOrdinal: 2, kind: 'user_message', text: 'run ls', status: 'completed', data: {} },
      { runOrdinal: 2, kind: 'tool_call', text: 'ls', status: 'completed', data: { output: 'a.md\nb.md\n' } },
      {
        runOrdinal: 2,
        kind: 'tool_call',
        text: 'apply_patch',
        status: 'completed',
        data: { files: [{ path: 'c.md', kind: { type: 'add' }, diff: 'new' }] },
      },
    ];
    const c = buildPortableContext(items, { mode: { type: 'full' }, maxChars: 2_000 });
    expect(c).toMatchObject({ strategy: 'full', coveredRunOrdinals: [1, 2], omittedItems: 0 });
    expect(c.text.split('\n').slice(1)).toEqual([
      '[run 1] User: hello',
      '[run 1] Assistant: hi there',
      '[run 2] User: run ls',
      '[run 2] Tool call: ls (completed)',
      '  output: a.md',
      '    b.md',
      '[run 2] Tool call: apply_patch (completed)',
      '  files: c.md (add)',
    ]);
    expect(
      buildPortableContext(items, { mode: { type: 'delta', sinceRunOrdinal: 1 }, maxChars: 2_000 }).coveredRunOrdinals,
    ).toEqual([2]);
  });
});
