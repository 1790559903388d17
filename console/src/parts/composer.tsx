import { useRef, useState } from 'preact/hooks';
import { RunId, ThreadId } from '../../../src/domain/ids.js';
import type { RunView, ThreadShell } from '../../../src/domain/projections.js';
import { DispatchMode } from '../../../src/domain/statuses.js';
import { send } from '../commands.js';
import { words } from '../format.js';
import { useConsole } from '../live/use-stream.js';

const modeHelp: Record<DispatchMode, string> = {
  auto: 'steer the active run if the agent can, else queue',
  start_immediately: 'start now (refused while a run is active)',
  steer_active: 'steer the active run',
  restart_active: 'interrupt the active run and restart with this',
  queue_after_active: 'run after the active one',
};

/** The message box: send with a dispatch mode; the active run's Interrupt and Stop sit beside it. */
export function Composer({ thread, active }: { thread: ThreadShell; active: RunView | null }) {
  const { client } = useConsole();
  const [text, setText] = useState('');
  const [mode, setMode] = useState<DispatchMode>('auto');
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const threadId = ThreadId.parse(thread.id);

  const submit = async (e?: Event) => {
    e?.preventDefault();
    if (!text.trim()) return;
    const sent = text;
    setBusy(true);
    const result = await send(client, 'thread.message.send', { threadId, text: sent, dispatchMode: mode });
    setBusy(false);
    // The box stays editable while the ack is on its way: what was typed since is kept.
    if (result) setText((now) => (now === sent ? '' : now));
    // The Send button is disabled while sending (and once the box is empty), which drops
    // keyboard focus to the page: it goes back to the box, ready for the next message.
    box.current?.focus();
  };
  const interrupt = (holdQueue: boolean) =>
    active &&
    void send(client, 'run.interrupt', { runId: RunId.parse(active.id), ...(holdQueue ? { holdQueue } : {}) });

  return (
    <form class="composer" onSubmit={submit} aria-label="Send a message">
      {active && (
        <div class="row spread wrap active-run" data-active-run={active.id}>
          <span>
            Run {active.ordinal} is <strong>{words(active.status)}</strong>
            {active.interruptRequested ? ' · interrupting…' : ''}
          </span>
          <span class="row">
            <button type="button" onClick={() => interrupt(false)} disabled={active.interruptRequested}>
              Interrupt
            </button>
            <button
              type="button"
              class="danger"
              onClick={() => interrupt(true)}
              title="Interrupt and hold the queue (and stop delegated tasks)"
            >
              Stop
            </button>
          </span>
        </div>
      )}
      {thread.queueHeld && (
        <p class="muted small-text">The queue is held: queued runs wait until you send a message.</p>
      )}
      <label class="sr-only" for="composer-text">
        Message
      </label>
      <textarea
        ref={box}
        id="composer-text"
        name="message"
        rows={3}
        value={text}
        placeholder={thread.status === 'active' ? 'Message the agent (Ctrl+Enter to send)' : 'This thread is archived'}
        disabled={thread.status !== 'active'}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void submit();
        }}
      />
      <div class="row spread wrap">
        <label class="inline">
          Dispatch
          <select
            name="dispatchMode"
            value={mode}
            onChange={(e) => setMode(DispatchMode.parse(e.currentTarget.value))}
            title={modeHelp[mode]}
          >
            {DispatchMode.options.map((m) => (
              <option value={m}>{words(m)}</option>
            ))}
          </select>
        </label>
        <span class="muted small-text mode-help">{modeHelp[mode]}</span>
        <button type="submit" class="primary" disabled={busy || !text.trim() || thread.status !== 'active'}>
          Send
        </button>
      </div>
    </form>
  );
}
