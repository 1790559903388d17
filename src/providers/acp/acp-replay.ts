import { CheckedReplay } from '../transport/checked-replay.js';
import type { TranscriptEntry, Vars } from '../transport/transcript.js';

/**
 * A recorded ACP agent process played back in its place (transport/checked-replay.ts; Baton's
 * fresh ids are those of acp-transcript-ids.ts). A frame that differs fails the replay before
 * it is played (Baton reports the close as the agent's exit).
 */
export class AcpReplay extends CheckedReplay {
  constructor(entries: TranscriptEntry[], vars: Vars, label: string) {
    super(entries, vars, label, 'the recorded agent');
    this.replay.onLine((line) => this.emitLine(line));
    this.replay.onClose((reason) => this.finish(reason));
  }

  async send(line: string): Promise<void> {
    const checked = this.check(line);
    if (!checked) return;
    if (checked.difference) return this.fail(checked.difference);
    await this.replay.send(line);
    this.endOnItsOwn();
  }
}
