import { ChannelBase } from '../transport/line-channel.js';
import { ReplayChannel, withValues, type TranscriptEntry, type Vars } from '../transport/transcript.js';
import type { AgentProcess } from './claude-process.js';
import { resultUuidOf, writeSessionFiles, type SessionFiles } from './claude-transcript-files.js';
import { bindSentIds, expectedOf, frameDifferences } from '../transport/replay-matching.js';
import { sessionArgs } from './claude-transcript-ids.js';
import { ChannelProcess, ON_ITS_OWN } from './claude-transcript-process.js';

/** One recorded agent process, as a replay plays it. */
export interface ReplayedProcess {
  /** Its command line (only the options that say which session it goes on with are checked). */
  args: string[];
  entries: TranscriptEntry[];
  /** What it wrote to its session files, when it was recorded with them. */
  sessionFiles: SessionFiles | null;
}

/**
 * A recorded agent process played back in place of the real one: the session Baton starts it
 * on and every frame Baton sends are checked against the recording (Baton's fresh ids bound as
 * they come, see claude-transcript-ids.ts), and the agent's recorded frames are said in reply,
 * in order, with no regard to their recorded timing; its session files are written where it
 * wrote them. A difference ends the process at once, with an error that says what differs. A
 * kill plays the recording up to its exit; an exit the process took on its own is played in place.
 */
export class ClaudeReplay extends ChannelBase {
  readonly process: AgentProcess;
  private readonly replay: ReplayChannel;
  /** Why the replay failed, if it did. */
  failure: string | null = null;
  /** A difference found before the SDK listens: reported with its first frame. */
  private pending: string | null = null;

  /**
   * `vars` holds the temp folders and the ids bound so far; the replays of one scenario share
   * it (an id Baton gave one process may be named to the next), and ids bound later are put
   * into frames too (the channel reads it at each frame).
   */
  constructor(
    private readonly recorded: ReplayedProcess,
    private readonly vars: Vars,
    readonly label: string,
    args: readonly string[],
  ) {
    super();
    this.replay = new ReplayChannel(recorded.entries, vars);
    this.replay.onLine((line) => {
      const result = recorded.sessionFiles ? resultUuidOf(line) : null;
      if (result) this.writeFiles({ result });
      this.emitLine(line);
    });
    this.replay.onClose((reason) => {
      this.writeFiles('all');
      this.finish(reason);
    });
    this.process = new ChannelProcess(this, { kill: () => this.replay.terminate() });
    const expected = sessionArgs(recorded.args);
    bindSentIds(expected, sessionArgs(args), vars);
    const differences = frameDifferences(expectedOf(expected, vars), sessionArgs(args));
    if (differences.length > 0)
      this.pending = `the agent was started on another session than recorded:\n  ${differences.join('\n  ')}`;
  }

  get mismatches(): string[] {
    return this.failure ? [this.failure, ...this.replay.mismatches] : this.replay.mismatches;
  }

  /** Every entry not played yet (outbound frames Baton has not sent, inbound ones not said). */
  get remaining(): TranscriptEntry[] {
    return this.replay.remaining;
  }

  async send(line: string): Promise<void> {
    if (this.closedReason) throw new Error(`replay closed: ${this.closedReason}`);
    if (this.pending) return this.fail(this.pending);
    const next = this.replay.remaining.find((e) => e.kind !== 'emit_inbound');
    let sent: unknown;
    try {
      sent = JSON.parse(line);
    } catch {
      return this.fail(`Baton sent a line that is not JSON: ${line}`);
    }
    if (next?.kind !== 'expect_outbound')
      return this.fail(`Baton sent a frame after the recorded process's last one: ${line}`);
    bindSentIds(next.frame, sent, this.vars);
    const expected = expectedOf(next.frame, this.vars);
    const differences = frameDifferences(expected, sent);
    await this.replay.send(line);
    if (differences.length > 0)
      return this.fail(
        `Baton sent a frame that differs from the recording's next one:\n  ${differences.join('\n  ')}\n  sent     ${line}\n  expected ${JSON.stringify(expected)}`,
      );
    this.endOnItsOwn();
  }

  /** A recorded exit nobody asked for comes once what the process said before it is said. */
  private endOnItsOwn(): void {
    const next = this.replay.remaining.find((e) => e.kind !== 'emit_inbound');
    if (next?.kind === 'runtime_exit' && next.reason.endsWith(ON_ITS_OWN)) this.replay.terminate();
  }

  /** The process dies where the recording's did (or now, if it did not). */
  terminate(): void {
    this.replay.terminate();
  }

  close(): void {
    this.replay.close();
  }

  private writeFiles(upTo: { result: string } | 'all'): void {
    if (this.recorded.sessionFiles) writeSessionFiles(this.recorded.sessionFiles, withValues(this.vars), upTo);
  }

  private fail(message: string): void {
    this.failure ??= `the replay of ${this.label} diverged: ${message}`;
    this.finish(`failed: ${this.failure}`);
    this.replay.close();
  }
}
