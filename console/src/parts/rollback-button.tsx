import { useState } from 'preact/hooks';
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
  const label = runOrdinal === 0 ? 'Roll back to the start' : `Roll back to run ${runOrdinal}`;
  if (!asking)
    return (
      <button type="button" class="small" disabled={disabled} onClick={() => setAsking(true)}>
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
      <button type="button" class="small" onClick={() => setAsking(false)}>
        Keep
      </button>
    </span>
  );
}
