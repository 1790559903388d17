import { structuredPatch } from 'diff';

/**
 * A file a tool changed, as every provider's tool node tells it (Codex's file-change items
 * are the model: codex-tool-items.ts): its path, whether it was added or updated, and its
 * diff, an add's being its content and an update's a unified diff (hunks only).
 */
export interface FileChange {
  path: string;
  kind: { type: 'add' | 'update' };
  diff: string;
}

/** One hunk of a unified diff: jsdiff's shape, which the Claude agent's structured patches share. */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** Hunks as unified-diff text. */
export const unifiedDiff = (hunks: readonly Hunk[]): string =>
  hunks
    .map(
      (h) =>
        `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.map((l) => `${l}\n`).join('')}`,
    )
    .join('');

/**
 * A file's change from its text before (null: it is new) and after, with three lines of
 * context as git gives them. Texts that both lack a final newline (an agent's excerpt:
 * claude-agent-acp sends its edits' so) are compared as if they had one, so the diff does
 * not claim a missing newline at the end of the file.
 */
export function fileChangeOf(path: string, oldText: string | null, newText: string): FileChange {
  if (oldText === null) return { path, kind: { type: 'add' }, diff: newText };
  const excerpt = !oldText.endsWith('\n') && !newText.endsWith('\n');
  const [before, after] = excerpt ? [`${oldText}\n`, `${newText}\n`] : [oldText, newText];
  return {
    path,
    kind: { type: 'update' },
    diff: unifiedDiff(structuredPatch(path, path, before, after, '', '', { context: 3 }).hunks),
  };
}
