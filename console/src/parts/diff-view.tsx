type Kind = 'file' | 'meta' | 'hunk' | 'add' | 'del' | 'ctx';

/**
 * The kind of each line. After a `diff --git` header its lines up to the first hunk are
 * the file's (mode, index, ---/+++); inside a hunk a line is what its first character
 * says, so a removed `--x` is never taken for a header. A diff without hunks (a tool's) is
 * read line by line.
 */
function kinds(lines: string[]): Kind[] {
  let at: 'loose' | 'header' | 'hunk' = 'loose';
  return lines.map((line) => {
    if (line.startsWith('diff --git ')) {
      at = 'header';
      return 'meta';
    }
    if (line.startsWith('@@')) {
      at = 'hunk';
      return 'hunk';
    }
    if (at === 'header') return line.startsWith('---') || line.startsWith('+++') ? 'file' : 'meta';
    if (at === 'loose' && (line.startsWith('+++') || line.startsWith('---'))) return 'file';
    if (line.startsWith('+')) return 'add';
    if (line.startsWith('-')) return 'del';
    if (line.startsWith('\\') || line.startsWith('Binary files ')) return 'meta';
    return 'ctx';
  });
}

/** A unified diff, its added and removed lines marked (by class, and by their +/- for those who cannot see colour). */
export function DiffView({ diff, label }: { diff: string; label?: string }) {
  const lines = diff.replace(/\n$/, '').split('\n');
  const kind = kinds(lines);
  return (
    <pre class="diff" aria-label={label ?? 'diff'}>
      {lines.map((line, i) => (
        <span class={`diff-${kind[i]}`}>{`${line}\n`}</span>
      ))}
    </pre>
  );
}
