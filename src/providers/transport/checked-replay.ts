import { ChannelBase } from './line-channel.js';
import { bindSentIds, expectedOf, frameDifferences } from './replay-matching.js';
import { ReplayChannel, type McpCaller, type TranscriptEntry, type Vars } from './transcript.js';

/** The next entry that waits on Baton or ends the process (what the agent says, or asks Baton's MCP server, plays itself). */
const nextStop = (remaining: TranscriptEntry[]) =>
  remaining.find((e) => e.kind === 'expect_outbound' || e.kind === 'runtime_exit');

/** Marks a recorded exit nobody asked for: a replay plays it in its place, with no kill to wait for. */
export const ON_ITS_OWN = ' on its own';

/**
 * A recorded agent process played back in its place, as a line channel: every frame Baton
 * sends is checked against the recording's next one (Baton's fresh ids bound as they come,
 * replay-matching.ts), and the agent's recorded frames are said in reply, in order, with no
 * regard to their recorded timing. A difference ends the "process" at once, its close reason
 * saying what differs. A kill plays the recording up to its exit; an exit the agent took on
 * its own is played in its place. Each provider's replay says when a difference fails it.
 */
export abstract class CheckedReplay extends ChannelBase {
  protected readonly replay: ReplayChannel;
  /** Why the replay failed, if it did. */
  failure: string | null = null;
  /** A difference found before Baton's first frame (the agent's command line): reported with that frame. */
  protected pending: string | null = null;

  /**
   * `vars` holds the temp folders and the ids bound so far; the replays of one scenario share
   * it (an id Baton gave one process may be named to the next). `speaker` names the recorded
   * side in a failure ("the recorded agent").
   */
  constructor(
    entries: TranscriptEntry[],
    protected readonly vars: Vars,
    readonly label: string,
    private readonly speaker: string,
  ) {
    super();
    this.replay = new ReplayChannel(entries, vars);
  }

  get mismatches(): string[] {
    return this.failure ? [this.failure, ...this.replay.mismatches] : this.replay.mismatches;
  }

  /** The recorded MCP requests are made again through `caller` (set before Baton's first frame). */
  callMcpWith(caller: McpCaller): void {
    this.replay.mcp = caller;
  }

  /** Every entry not played yet (outbound frames Baton has not sent, inbound ones not said). */
  get remaining(): TranscriptEntry[] {
    return this.replay.remaining;
  }

  /**
   * Checks a line Baton sent against the recording's next frame, binding the ids it brings:
   * null when that failed the replay (a pending difference, not JSON, or past the recording's
   * end), else the difference to fail with (null when there is none).
   */
  protected check(line: string): { difference: string | null } | null {
    if (this.closedReason) throw new Error(`replay closed: ${this.closedReason}`);
    if (this.pending) {
      this.fail(this.pending);
      return null;
    }
    const next = nextStop(this.replay.remaining);
    let sent: unknown;
    try {
      sent = JSON.parse(line);
    } catch {
      this.fail(`Baton sent a line that is not JSON: ${line}`);
      return null;
    }
    if (next?.kind !== 'expect_outbound') {
      this.fail(`Baton sent a frame after ${this.speaker}'s last one: ${line}`);
      return null;
    }
    bindSentIds(next.frame, sent, this.vars);
    const expected = expectedOf(next.frame, this.vars);
    const differences = frameDifferences(expected, sent);
    return {
      difference:
        differences.length > 0
          ? `Baton sent a frame that differs from the recording's next one:\n  ${differences.join('\n  ')}\n  sent     ${line}\n  expected ${JSON.stringify(expected)}`
          : null,
    };
  }

  /** A recorded exit nobody asked for comes once what the agent said before it is said. */
  protected endOnItsOwn(): void {
    const next = nextStop(this.replay.remaining);
    if (next?.kind === 'runtime_exit' && next.reason.endsWith(ON_ITS_OWN)) this.replay.terminate();
  }

  /** The process dies where the recording's did (or now, if it did not). */
  terminate(): void {
    this.replay.terminate();
  }

  close(): void {
    this.replay.close();
  }

  protected fail(message: string): void {
    this.failure ??= `the replay of ${this.label} diverged: ${message}`;
    this.finish(`failed: ${this.failure}`);
    this.replay.close();
  }
}
