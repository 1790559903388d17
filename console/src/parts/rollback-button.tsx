import type { RefObject } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ThreadId } from '../../../src/domain/ids.js';
import { send } from '../commands.js';
import { useConsole } from '../live/use-stream.js';

/** Rolls the thread back to a run's checkpoint, after a second click: it restores files and marks later runs rolled back. */
export function RollbackButton({
  threadId,
  runOrdinal,
  disabled,
}: {
  threadId: string;
  runOrdinal: number;
  disabled: boolean;
}) {
  const { client } = useConsole();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const focusAfter = useConfirmFocus(asking);
  const label = runOrdinal === 0 ? 'Roll back to the start' : `Roll back to run ${runOrdinal}`;
  if (!asking)
    return (
      <button ref={focusAfter.ask} type="button" class="small" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  const confirm = async () => {
    setBusy(true);
    await send(client, 'rollback.toRun', { threadId: ThreadId.parse(threadId), runOrdinal });
    setBusy(false);
    setAsking(false);
  };
  return (
    <ConfirmRollback
      label={label}
      question="Restore files and mark later runs rolled back?"
      busy={busy}
      keepRef={focusAfter.keep}
      onConfirm={() => void confirm()}
      onKeep={() => setAsking(false)}
    />
  );
}

/** A rollback's second step: its question, Confirm, and Keep (which `useConfirmFocus` focuses). */
export function ConfirmRollback(props: {
  label: string;
  question: string;
  busy: boolean;
  keepRef: RefObject<HTMLButtonElement | null>;
  onConfirm: () => void;
  onKeep: () => void;
}) {
  return (
    <span class="row confirm" role="group" aria-label={props.label}>
      <span class="small-text">{props.question}</span>
      <button type="button" class="small danger" disabled={props.busy} onClick={props.onConfirm}>
        Confirm rollback
      </button>
      <button ref={props.keepRef} type="button" class="small" onClick={props.onKeep}>
        Keep
      </button>
    </span>
  );
}

/**
 * Focus across a two-step confirm, for the keyboard: the question takes focus on its safe
 * answer (Keep), and Keep gives it back to the button that asked (each replaces the other,
 * which would otherwise drop focus to the page).
 */
export function useConfirmFocus(asking: boolean) {
  const ask = useRef<HTMLButtonElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const moved = useRef(false);
  // In the render that swaps the buttons, not after a paint: no moment with focus on nothing.
  useLayoutEffect(() => {
    // Not on the first render: a page full of these takes no focus.
    if (!moved.current) return void (moved.current = true);
    (asking ? keep : ask).current?.focus();
  }, [asking]);
  return { ask, keep };
}
