import type { CheckpointDiffFile } from '../../../src/server/checkpoint-diff.js';
import { DiffView } from './diff-view.js';

/** What was cut from a file's patch, in words. */
function cutNote(file: CheckpointDiffFile): string | null {
  if (!file.truncated) return null;
  if (file.patch) return 'The patch is cut short here: it is longer than Baton sends at once.';
  return 'No patch: the file is too large to diff here, or the answer was already full.';
}

/** One changed file of a checkpoint: its status and counts, and its patch folded under them. */
export function CheckpointDiffFileEntry({
  file,
  open,
  onToggle,
}: {
  file: CheckpointDiffFile;
  open: boolean;
  onToggle: (open: boolean) => void;
}) {
  const note = cutNote(file);
  return (
    <li>
      <details
        class={`diff-file-entry status-${file.status}`}
        open={open}
        onToggle={(e) => onToggle(e.currentTarget.open)}
        data-path={file.path}
      >
        <summary>
          <span class={`chip file-${file.status}`}>{file.status}</span>
          <span class="path">{file.path}</span>
          <span class="muted">{file.binary ? 'binary' : `+${file.additions} −${file.deletions}`}</span>
          {file.truncated && <span class="chip attention">cut</span>}
        </summary>
        {file.patch && <DiffView diff={file.patch} label={`diff of ${file.path}`} />}
        {note && <p class="muted small-text">{note}</p>}
      </details>
    </li>
  );
}
