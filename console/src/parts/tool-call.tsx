import type { TurnItemView } from '../../../src/domain/projections.js';
import { words } from '../format.js';
import { DiffView } from './diff-view.js';

interface FileChange {
  path: string;
  kind?: unknown;
  diff?: string;
}

const fileChanges = (files: unknown): FileChange[] =>
  Array.isArray(files) ? files.filter((f): f is FileChange => typeof (f as FileChange | null)?.path === 'string') : [];

const kindOf = (kind: unknown): string =>
  typeof kind === 'string'
    ? kind
    : typeof (kind as { type?: unknown } | null)?.type === 'string'
      ? String((kind as { type: string }).type)
      : '';

/** A tool call: what ran, its streamed output, how it ended, and the files it changed with their diffs. */
export function ToolCall({ item }: { item: TurnItemView }) {
  const d = item.data as Record<string, unknown>;
  const command = typeof d.command === 'string' ? d.command : null;
  const output = typeof d.output === 'string' ? d.output : null;
  const files = fileChanges(d.files);
  const tool = typeof d.tool === 'string' ? d.tool : 'tool';
  const result = d.result ?? d.content;
  return (
    <div class={`item tool-call status-${item.status}`}>
      <div class="row spread wrap">
        <span class="item-label">{words(tool)}</span>
        <span class="row meta">
          {typeof d.exitCode === 'number' && <span class="muted">exit {d.exitCode}</span>}
          {typeof d.durationMs === 'number' && <span class="muted">{Math.round(d.durationMs)} ms</span>}
          <span class={`chip status-${item.status}`}>{words(item.status)}</span>
        </span>
      </div>
      {command ? <code class="command">{command}</code> : item.text && <div class="tool-title">{item.text}</div>}
      {output !== null && output !== '' && (
        <pre class="tool-output" aria-label="tool output">
          {output}
        </pre>
      )}
      {files.map((f) => (
        <details class="file-change" open={files.length <= 3}>
          <summary>
            {kindOf(f.kind) && <span class="muted">{kindOf(f.kind)} </span>}
            <span class="path">{f.path}</span>
          </summary>
          {f.diff ? <DiffView diff={f.diff} label={`diff of ${f.path}`} /> : <p class="muted">no diff</p>}
        </details>
      ))}
      {result !== undefined && result !== null && (
        <details class="tool-result">
          <summary>Result</summary>
          <pre>{typeof result === 'string' ? result : JSON.stringify(result, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}
