import { describe, expect, it } from 'vitest';
import { fileChangeOf, unifiedDiff } from '../../src/providers/file-changes.js';

/** A file change as every provider's tool node tells it: an add's content, an update's unified diff. */
describe('file changes', () => {
  it('a new file is an add whose diff is its content', () => {
    expect(fileChangeOf('/w/a.md', null, 'one\n')).toEqual({ path: '/w/a.md', kind: { type: 'add' }, diff: 'one\n' });
  });

  it('an update is a unified diff of its hunks, with context', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n') + '\n';
    const after = before.replace('e\n', 'E\n');
    expect(fileChangeOf('/w/b.md', before, after)).toEqual({
      path: '/w/b.md',
      kind: { type: 'update' },
      diff: '@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n',
    });
  });

  it('two excerpts that both lack a final newline do not claim one missing; a file that lost its own does', () => {
    expect(fileChangeOf('/w/c.md', 'one\ntwo', 'one\nthree').diff).toBe('@@ -1,2 +1,2 @@\n one\n-two\n+three\n');
    expect(fileChangeOf('/w/c.md', 'one\n', 'one').diff).toContain('\\ No newline at end of file');
  });

  it('writes hunks as unified-diff text', () => {
    expect(unifiedDiff([{ oldStart: 3, oldLines: 1, newStart: 3, newLines: 2, lines: ['-x', '+y', '+z'] }])).toBe(
      '@@ -3,1 +3,2 @@\n-x\n+y\n+z\n',
    );
    expect(unifiedDiff([])).toBe('');
  });
});
