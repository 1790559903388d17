import { RecordingChannel, withPlaceholders, type TranscriptEntry, type Vars } from '../transport/transcript.js';
import type { AgentProcess } from './claude-process.js';
import { SessionFilesRecorder, type SessionFiles } from './claude-transcript-files.js';
import { ChildProcessChannel } from '../transport/line-channel.js';
import { ON_ITS_OWN } from '../transport/checked-replay.js';
import { ChannelProcess } from './claude-transcript-process.js';

/**
 * The real agent process, recorded: every stream-json line the SDK writes to its stdin and
 * every line it writes to stdout (with its timing) become transcript entries, and its exit a
 * `runtime_exit`; its command line and its session files are kept too. The SDK talks to it as
 * to the real process (signals go to the real one). An exit nobody asked for (no kill, stdin
 * still open) is marked as the process's own, so a replay plays it in its place instead of
 * waiting for a kill. The temp folders are `{{placeholders}}`; Baton's fresh ids are made
 * placeholders across a scenario's processes (claude-transcript-ids.ts).
 */
export class ClaudeRecording {
  readonly process: AgentProcess;
  private readonly channel: RecordingChannel;
  private readonly files: SessionFilesRecorder;
  private readonly toPlaceholders: (s: string) => string;
  /** Baton closed its stdin or signalled it, or the scenario killed it. */
  private askedToEnd = false;
  private endedOnItsOwn = false;

  constructor(
    private readonly child: AgentProcess,
    private readonly args: readonly string[],
    configDir: string,
    vars: Vars,
  ) {
    this.toPlaceholders = withPlaceholders(vars);
    this.files = new SessionFilesRecorder(configDir);
    const asked = () => (this.askedToEnd = true);
    const inner = new ChildProcessChannel(child, { afterStdout: true });
    // Before the recording hears a line: how far the session files are written when a turn ends.
    inner.onLine((line) => this.files.heard(line));
    this.channel = new RecordingChannel(
      {
        send: (line) => inner.send(line),
        onLine: (listener) => inner.onLine(listener),
        onClose: (listener) => inner.onClose(listener),
        close: () => (asked(), inner.close()),
      },
      vars,
    );
    this.process = new ChannelProcess(this.channel, {
      kill: (signal) => (asked(), child.kill(signal)),
      get pid() {
        return child.pid;
      },
      stderr: child.stderr,
    });
    this.channel.onClose(() => {
      this.endedOnItsOwn = !this.askedToEnd;
      this.files.freeze();
    });
  }

  /** The scenario kills the process (from outside Baton: a replay kills it at the same place). */
  kill(signal: NodeJS.Signals): void {
    this.askedToEnd = true;
    this.child.kill(signal);
  }

  /** Its command line and what was said so far, the temp folders as placeholders. */
  recorded(): { args: string[]; entries: TranscriptEntry[]; wrote: string[] } {
    const entries = this.channel.entries.map((entry) =>
      entry.kind === 'runtime_exit' && this.endedOnItsOwn
        ? { ...entry, reason: `${entry.reason}${ON_ITS_OWN}` }
        : entry,
    );
    const wrote = this.files.snapshot(this.toPlaceholders).files.flatMap((f) => f.lines);
    return { args: this.args.map(this.toPlaceholders), entries, wrote };
  }

  /** Its session files as they stand now; `replace` adds the id placeholders. */
  sessionFiles(replace: (s: string) => string): SessionFiles {
    return this.files.snapshot((s) => replace(this.toPlaceholders(s)));
  }
}
