import { useEffect, useRef, useState } from 'preact/hooks';
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
    <span class="row confirm" role="group" aria-label={label}>
      <span class="small-text">Restore files and mark later runs rolled back?</span>
      <button type="button" class="small danger" disabled={busy} onClick={() => void confirm()}>
        Confirm rollback
      </button>
      <button ref={focusAfter.keep} type="button" class="small" onClick={() => setAsking(false)}>
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
  useEffect(() => {
    // Not on the first render: a page full of these takes no focus.
    if (!moved.current) return void (moved.current = true);
    (asking ? keep : ask).current?.focus();
  }, [asking]);
  return { ask, keep };
}
