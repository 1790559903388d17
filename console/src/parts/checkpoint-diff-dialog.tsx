import { useEffect, useRef, useState } from 'preact/hooks';
import { CheckpointDiffResult } from '../../../src/server/checkpoint-diff.js';
import { ErrorInfo } from '../../../src/domain/errors.js';
import { describeError } from '../commands.js';
import { plural } from '../format.js';
import { useConsole } from '../live/use-stream.js';
import { CheckpointDiffFileEntry } from './checkpoint-diff-file.js';

type Loaded = { kind: 'loading' } | { kind: 'error'; text: string } | { kind: 'ready'; diff: CheckpointDiffResult };

/** Files opened at first: all of a small change, none of a large one (a click or Enter opens each). */
const openAtFirst = 3;

const tabbable = 'a[href], button:not(:disabled), input:not(:disabled), select, textarea, summary, [tabindex="0"]';

/**
 * Keeps Tab inside a modal dialog: from its last control to its first and back. A modal
 * <dialog> makes the page behind it inert, but Tab still leaves it for the browser's own UI.
 */
export function trapTab(e: KeyboardEvent): void {
  if (e.key !== 'Tab') return;
  const dialog = e.currentTarget as HTMLElement;
  const all = [...dialog.querySelectorAll<HTMLElement>(tabbable)].filter((el) => el.getClientRects().length > 0);
  const first = all[0];
  const last = all.at(-1);
  if (!first || !last) return;
  const at = document.activeElement;
  if (e.shiftKey && (at === first || at === dialog)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && at === last) {
    e.preventDefault();
    first.focus();
  }
}

/**
 * A checkpoint's changes file by file (the `checkpoint-diff` query), in a modal dialog:
 * Tab stays in it, Escape or Close ends it and focus goes back where it was. Each file's patch folds under
 * its name; what Baton cut to keep the answer small is said, never hidden.
 */
export function CheckpointDiffDialog({
  checkpointId,
  title,
  onClose,
}: {
  checkpointId: string;
  title: string;
  onClose: () => void;
}) {
  const { client } = useConsole();
  const dialog = useRef<HTMLDialogElement>(null);
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [opened, setOpened] = useState<Set<string>>(new Set());

  useEffect(() => {
    if (!dialog.current?.open) dialog.current?.showModal();
  }, []);
  useEffect(() => {
    let live = true;
    const fail = (text: string) => live && setLoaded({ kind: 'error', text });
    client.query({ type: 'checkpoint-diff', checkpointId }).then(
      (answer) => {
        if (!answer.ok) {
          const error = ErrorInfo.safeParse(answer.error);
          return fail(error.success ? describeError(error.data) : 'Baton refused the diff');
        }
        const diff = CheckpointDiffResult.safeParse(answer.result);
        if (!diff.success) return fail('Baton answered with a diff the console cannot read');
        if (!live) return;
        setLoaded({ kind: 'ready', diff: diff.data });
        if (diff.data.files.length <= openAtFirst) setOpened(new Set(diff.data.files.map((f) => f.path)));
      },
      (error: unknown) => fail(`No answer from Baton: ${error instanceof Error ? error.message : String(error)}`),
    );
    return () => void (live = false);
  }, [checkpointId]);

  const toggle = (path: string, open: boolean) =>
    setOpened((now) => {
      if (now.has(path) === open) return now;
      const next = new Set(now);
      if (open) next.add(path);
      else next.delete(path);
      return next;
    });
  const files = loaded.kind === 'ready' ? loaded.diff.files : [];
  return (
    <dialog ref={dialog} class="diff-dialog" aria-labelledby="diff-dialog-title" onClose={onClose} onKeyDown={trapTab}>
      <header class="row spread wrap">
        <h2 id="diff-dialog-title">Changes {title}</h2>
        <button type="button" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </header>
      <div class="diff-body">
        {loaded.kind === 'loading' && <p class="muted">Reading the checkpoint's files…</p>}
        {loaded.kind === 'error' && (
          <p class="error" role="alert">
            {loaded.text}
          </p>
        )}
        {loaded.kind === 'ready' && (
          <>
            <div class="row spread wrap diff-summary">
              <span>
                {plural(loaded.diff.totalFiles, 'file')} changed
                {loaded.diff.baseCheckpointId === null ? ' (from an empty workspace)' : ''}
                {loaded.diff.totalFiles > files.length && <> · the first {files.length} shown</>}
              </span>
              {files.length > 1 && (
                <span class="row">
                  <button type="button" class="small" onClick={() => setOpened(new Set(files.map((f) => f.path)))}>
                    Unfold all
                  </button>
                  <button type="button" class="small" onClick={() => setOpened(new Set())}>
                    Fold all
                  </button>
                </span>
              )}
            </div>
            {files.length === 0 && <p class="muted">No file changed.</p>}
            <ul class="diff-files" aria-label="Changed files">
              {files.map((f) => (
                <CheckpointDiffFileEntry
                  key={f.path}
                  file={f}
                  open={opened.has(f.path)}
                  onToggle={(open) => toggle(f.path, open)}
                />
              ))}
            </ul>
          </>
        )}
      </div>
    </dialog>
  );
}
