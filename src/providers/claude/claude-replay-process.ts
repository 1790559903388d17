import { CheckedReplay } from '../transport/checked-replay.js';
import { bindSentIds, expectedOf, frameDifferences } from '../transport/replay-matching.js';
import { withValues, type TranscriptEntry, type Vars } from '../transport/transcript.js';
import type { AgentProcess } from './claude-process.js';
import { resultUuidOf, writeSessionFiles, type SessionFiles } from './claude-transcript-files.js';
import { sessionArgs } from './claude-transcript-ids.js';
import { ChannelProcess } from './claude-transcript-process.js';

/** One recorded agent process, as a replay plays it. */
export interface ReplayedProcess {
  /** Its command line (only the options that say which session it goes on with are checked). */
  args: string[];
  entries: TranscriptEntry[];
  /** What it wrote to its session files, when it was recorded with them. */
  sessionFiles: SessionFiles | null;
}

/**
 * A recorded agent process played back in place of the real one (transport/checked-replay.ts;
 * Baton's fresh ids are those of claude-transcript-ids.ts): the session Baton starts it on is
 * checked too, and its session files are written where it wrote them. A frame that differs is
 * played, then fails the replay.
 */
export class ClaudeReplay extends CheckedReplay {
  readonly process: AgentProcess;

  /** Ids bound later are put into frames too (the channel reads `vars` at each frame). */
  constructor(
    private readonly recorded: ReplayedProcess,
    vars: Vars,
    label: string,
    args: readonly string[],
  ) {
    super(recorded.entries, vars, label, 'the recorded process');
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

  async send(line: string): Promise<void> {
    const checked = this.check(line);
    if (!checked) return;
    await this.replay.send(line);
    if (checked.difference) return this.fail(checked.difference);
    this.endOnItsOwn();
  }

  private writeFiles(upTo: { result: string } | 'all'): void {
    if (this.recorded.sessionFiles) writeSessionFiles(this.recorded.sessionFiles, withValues(this.vars), upTo);
  }
}
