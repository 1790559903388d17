import type { LineChannel } from '../transport/line-channel.js';
import { RecordingChannel, type TranscriptEntry, type Vars } from '../transport/transcript.js';
import { ON_ITS_OWN } from '../transport/checked-replay.js';

/**
 * One real ACP agent process, recorded: every NDJSON frame Baton writes to its stdin and
 * every one it writes to stdout (with its timing) become transcript entries, and its exit a
 * `runtime_exit`. Baton talks to `channel` as to the process itself. An exit nobody asked for
 * (Baton did not close the channel, the scenario did not kill it) is marked as the agent's
 * own, so that a replay plays it in its place instead of waiting for a kill. The run's temp
 * folders are `{{placeholders}}`.
 */
export class AcpRecording {
  readonly channel: LineChannel;
  private readonly recording: RecordingChannel;
  private askedToEnd = false;
  private endedOnItsOwn = false;

  constructor(inner: LineChannel, vars: Vars) {
    this.recording = new RecordingChannel(
      {
        send: (line) => inner.send(line),
        onLine: (listener) => inner.onLine(listener),
        onClose: (listener) => inner.onClose(listener),
        close: () => {
          this.askedToEnd = true;
          inner.close();
        },
      },
      vars,
    );
    this.recording.onClose(() => (this.endedOnItsOwn = !this.askedToEnd));
    this.channel = this.recording;
  }

  /** The scenario is about to kill the process (a replay kills it at the same place). */
  killedByScenario(): void {
    this.askedToEnd = true;
  }

  /** What was said so far, the temp folders as placeholders (Baton's fresh ids are made placeholders per scenario). */
  recorded(): TranscriptEntry[] {
    return this.recording.entries.map((entry) =>
      entry.kind === 'runtime_exit' && this.endedOnItsOwn
        ? { ...entry, reason: `${entry.reason}${ON_ITS_OWN}` }
        : entry,
    );
  }
}
