import type { ErrorInfo } from '../../domain/errors.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import { Deadline } from '../deadline.js';

/** How a turn ends when its agent is killed for not answering an interrupt in time. */
export interface Escalation {
  runStatus: 'interrupted' | 'failed';
  error: ErrorInfo;
}

export interface TurnClocksOptions {
  /** A turn with no word from the agent this long is interrupted and fails (`BATON_TURN_IDLE_TIMEOUT_MS`). */
  turnIdleTimeoutMs: number;
  /** An interrupt not followed by the turn's end this long kills the agent (`BATON_INTERRUPT_TIMEOUT_MS`). */
  interruptTimeoutMs: number;
  /** The turn went quiet: interrupt it (its end is then rewritten as failed with `error`). */
  onQuiet(error: ErrorInfo): void;
  /** An interrupt went unanswered: kill the agent, its run ends as `escalation` says. */
  onUnanswered(escalation: Escalation): void;
}

/**
 * The two clocks on a Claude turn, as Codex has them: a watchdog for a turn the agent has
 * gone silent on (paused while a permission ask waits on the user), and the interrupt's
 * deadline (the SDK's `interrupt()` is only an acknowledgement; if the turn's `result`
 * does not follow in time, the agent is killed). Neither keeps the process alive.
 */
export class TurnClocks {
  private readonly quiet: Deadline;
  private readonly unended: Deadline;
  private escalation: { attemptId: string; cause: Escalation } | null = null;
  /** The attempt the watchdog interrupted: its `interrupted` end is a failure with this error. */
  private timedOut: { attemptId: string; error: ErrorInfo } | null = null;
  /** The attempt the watchdog watches (a turn handed over or running). */
  private watched: string | null = null;

  constructor(private readonly options: TurnClocksOptions) {
    this.quiet = new Deadline(options.turnIdleTimeoutMs, () => {
      const attemptId = this.watched;
      if (!attemptId) return;
      const error: ErrorInfo = {
        code: 'timeout',
        message: `Claude reported nothing on the turn for ${options.turnIdleTimeoutMs} ms; it was interrupted`,
      };
      this.timedOut = { attemptId, error };
      options.onQuiet(error);
    });
    this.unended = new Deadline(options.interruptTimeoutMs, () => {
      if (this.escalation) options.onUnanswered(this.escalation.cause);
    });
  }

  /** A sign of life on a turn (or its hand-over): the watch starts again, unless an ask waits on the user. */
  activity(attemptId: string | null, askPending: boolean): void {
    this.watched = attemptId;
    if (attemptId && !askPending) this.quiet.arm();
    else this.quiet.disarm();
  }

  /** An interrupt was asked of `attemptId`: its end must follow in time. */
  interruptAsked(attemptId: string, runStatus: Escalation['runStatus'], lead: string): void {
    if (this.timedOut?.attemptId === attemptId) runStatus = 'failed';
    this.escalation = {
      attemptId,
      cause: {
        runStatus,
        error: {
          code: 'timeout',
          message: `${lead} the turn did not end within ${this.options.interruptTimeoutMs} ms of the interrupt; its process was killed`,
        },
      },
    };
    this.unended.arm();
  }

  /** Passes an event on its way to the runtime: a turn's end stops its clocks (and a watchdog's interrupt is a failure). */
  seen(event: ProviderEvent): ProviderEvent {
    if (event.type !== 'turn.completed') return event;
    if (this.escalation?.attemptId === event.attemptId) this.settle();
    if (this.watched === event.attemptId) this.activity(null, false);
    const timedOut = this.timedOut;
    if (timedOut?.attemptId !== event.attemptId) return event;
    this.timedOut = null;
    return event.status === 'interrupted' ? { ...event, status: 'failed', error: timedOut.error } : event;
  }

  /** The agent is gone or released: nothing more to watch. */
  stop(): void {
    this.settle();
    this.activity(null, false);
    this.timedOut = null;
  }

  private settle(): void {
    this.escalation = null;
    this.unended.disarm();
  }
}
