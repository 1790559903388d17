import { z } from 'zod';
import { unifiedDiff, type FileChange } from '../file-changes.js';

/**
 * What the Claude agent's file tools changed, told as every provider's file changes are
 * (file-changes.ts), read from the tool's `tool_use_result` on the message that carries its
 * result: `Write` gives `type: 'create'` with the content (or `'update'` with a structured
 * patch), `Edit` and `MultiEdit` a structured patch.
 */

/** The tools whose uses are file changes. */
export const FILE_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit']);

const Hunk = z.looseObject({
  oldStart: z.number(),
  oldLines: z.number(),
  newStart: z.number(),
  newLines: z.number(),
  lines: z.array(z.string()),
});
const FileResult = z.looseObject({
  filePath: z.string().min(1),
  type: z.enum(['create', 'update']).optional(),
  content: z.string().optional(),
  structuredPatch: z.array(Hunk).optional(),
});

/** The files a file tool's use changed, from its `tool_use_result`; null when it says none. */
export function fileChangesOf(toolUseResult: unknown): FileChange[] | null {
  const result = FileResult.safeParse(toolUseResult).data;
  if (!result) return null;
  if (result.type === 'create') return [{ path: result.filePath, kind: { type: 'add' }, diff: result.content ?? '' }];
  const hunks = result.structuredPatch ?? [];
  return [{ path: result.filePath, kind: { type: 'update' }, diff: unifiedDiff(hunks) }];
}
