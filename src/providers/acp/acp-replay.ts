import { bindSentIds, expectedOf, frameDifferences } from '../transport/replay-matching.js';
import { ChannelBase } from '../transport/line-channel.js';
import { ReplayChannel, type TranscriptEntry, type Vars } from '../transport/transcript.js';

/** Marks a recorded exit nobody asked for: a replay plays it in its place, with no kill to wait for. */
export const ON_ITS_OWN = ' on its own';

/**
 * A recorded ACP agent process played back in its place: every frame Baton sends is checked
 * against the recording's next one (Baton's fresh ids bound as they come, see
 * acp-transcript-ids.ts), and the agent's recorded frames are said in reply, in order, with
 * no regard to their recorded timing. A difference ends the "process" at once, its close
 * reason saying which field differs (Baton reports it as the agent's exit). A kill plays the
 * recording up to its exit; an exit the agent took on its own is played in its place.
 */
export class AcpReplay extends ChannelBase {
  private readonly replay: ReplayChannel;
  /** Why the replay failed, if it did. */
  failure: string | null = null;

  /**
   * `vars` holds the temp folders and the ids bound so far; the replays of one scenario share
   * it (an id Baton gave one process may be named to the next).
   */
  constructor(
    entries: TranscriptEntry[],
    private readonly vars: Vars,
    readonly label: string,
  ) {
    super();
    this.replay = new ReplayChannel(entries, vars);
    this.replay.onLine((line) => this.emitLine(line));
    this.replay.onClose((reason) => this.finish(reason));
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
    const next = this.replay.remaining.find((e) => e.kind !== 'emit_inbound');
    let sent: unknown;
    try {
      sent = JSON.parse(line);
    } catch {
      return this.fail(`Baton sent a line that is not JSON: ${line}`);
    }
    if (next?.kind !== 'expect_outbound')
      return this.fail(`Baton sent a frame after the recorded agent's last one: ${line}`);
    bindSentIds(next.frame, sent, this.vars);
    const expected = expectedOf(next.frame, this.vars);
    const differences = frameDifferences(expected, sent);
    if (differences.length > 0)
      return this.fail(
        `Baton sent a frame that differs from the recording's next one:\n  ${differences.join('\n  ')}\n  sent     ${line}\n  expected ${JSON.stringify(expected)}`,
      );
    await this.replay.send(line);
    // A recorded exit nobody asked for comes once what the agent said before it is said.
    const after = this.replay.remaining.find((e) => e.kind !== 'emit_inbound');
    if (after?.kind === 'runtime_exit' && after.reason.endsWith(ON_ITS_OWN)) this.replay.terminate();
  }

  /** The process dies where the recording's did (or now, if it did not). */
  terminate(): void {
    this.replay.terminate();
  }

  close(): void {
    this.replay.close();
  }

  private fail(message: string): void {
    this.failure ??= `the replay of ${this.label} diverged: ${message}`;
    this.finish(`failed: ${this.failure}`);
    this.replay.close();
  }
}
