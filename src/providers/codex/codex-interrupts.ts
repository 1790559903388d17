import { BatonError, type ErrorInfo } from '../../domain/errors.js';
import type { RunId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import { Deadline } from '../deadline.js';
import type { CodexHost } from './codex-host.js';
import type { CodexNormalizer, TurnRef } from './codex-normalizer.js';
import { CodexSession } from './codex-session.js';

/**
 * Interrupting a Codex turn, asked by the user or by the turn watchdog (a turn Codex has gone
 * silent on), and killing a Codex that does not answer the interrupt, or end the turn, in time.
 */

/** How the active run ends when Baton kills a Codex that stopped answering. */
export interface Escalation {
  runStatus: 'failed' | 'interrupted';
  error: ErrorInfo;
}

/** Who asked for an interrupt, as the run's end tells it if Codex has to be killed. */
export interface InterruptCause {
  runStatus: Escalation['runStatus'];
  /** How the error message begins: the subject of "did not answer the interrupt". */
  lead: string;
}

/** What the interrupts need of the adapter: its session, native thread and turn are read at each use (they change). */
export interface InterruptScope {
  threadId: ThreadId;
  host: CodexHost;
  turnIdleTimeoutMs: number;
  interruptTimeoutMs: number;
  session(): CodexSession | null;
  /** The running session's normalizer (throws when no session started). */
  normalizer(): CodexNormalizer;
  nativeThreadId(): string | null;
  active(): TurnRef | null;
  forward(events: ProviderEvent[]): void;
}

export class CodexInterrupts {
  /** The turn watchdog: armed while a turn runs, re-armed by every frame Codex sends. */
  readonly quiet: Deadline;
  /** After an acknowledged interrupt: the turn's end must follow in time. */
  private readonly unended: Deadline;
  private unendedCause: Escalation | null = null;
  /** Sessions Baton killed, and how their active run ends. */
  private readonly killed = new WeakMap<CodexSession, Escalation>();
  /** The attempt the watchdog interrupted: its `interrupted` end is reported as the timeout it was. */
  private timedOut: { attemptId: string; error: ErrorInfo } | null = null;

  constructor(private readonly o: InterruptScope) {
    this.quiet = new Deadline(o.turnIdleTimeoutMs, () => this.turnWentQuiet());
    this.unended = new Deadline(o.interruptTimeoutMs, () => {
      const session = o.session();
      if (session && this.unendedCause) void this.escalate(session, this.unendedCause);
    });
  }

  /**
   * Asks Codex to interrupt a turn. The answer is an acknowledgement, reported in Codex's
   * order: `turn/completed interrupted`, which follows it, ends the turn. A Codex that
   * answers neither within `interruptTimeoutMs` is killed, and the run ends as `cause` says.
   */
  async interrupt(attemptId: string, runId: RunId | null, cause: InterruptCause): Promise<void> {
    const o = this.o;
    const session = CodexSession.assertReady(o.session());
    const normalizer = o.normalizer();
    const killed = (what: string): Escalation => ({
      runStatus: cause.runStatus,
      error: {
        code: 'timeout',
        message: `${cause.lead} ${what} within ${o.interruptTimeoutMs} ms; its process was killed`,
      },
    });
    const unanswered = killed('did not answer the interrupt');
    const turnId = o.host.nativeTurnRef(attemptId) ?? (await normalizer.whenTurnBound(attemptId, o.interruptTimeoutMs));
    if (!turnId) return this.escalate(session, unanswered);
    // An interrupt before Codex holds the turn as started would be refused and lost.
    if (!(await normalizer.whenTurnStarted(turnId, o.interruptTimeoutMs))) return this.escalate(session, unanswered);
    // Codex leaves its subagents running when their root turn is interrupted (measured): they are stopped too.
    for (const child of normalizer.subagents.runningTurns())
      session.turnInterrupt(child.threadId, child.turnId, o.interruptTimeoutMs).catch(() => undefined);
    try {
      await session.turnInterrupt(o.nativeThreadId()!, turnId, o.interruptTimeoutMs, () => {
        if (runId) o.forward([{ type: 'interrupt.acknowledged', threadId: o.threadId, runId }]);
      });
    } catch (error) {
      if (error instanceof BatonError && error.code === 'timeout') return this.escalate(session, unanswered);
      throw error;
    }
    // The end may already have been read with the acknowledgement; if not, it must follow in time.
    if (o.session() === session && o.active()?.attemptId === attemptId) {
      this.unendedCause = killed('acknowledged the interrupt but did not end the turn');
      this.unended.arm();
    }
  }

  /** A turn's end on its way to the runtime: the watchdog's interrupt ends it as the timeout it was. */
  seen(event: ProviderEvent): ProviderEvent {
    if (event.type === 'turn.completed' && this.timedOut?.attemptId === event.attemptId) {
      if (event.status === 'interrupted') event = { ...event, status: 'failed', error: this.timedOut.error };
      this.timedOut = null;
    }
    return event;
  }

  /** The turn ended, or its session is released: nothing to watch. */
  disarm(): void {
    this.quiet.disarm();
    this.unended.disarm();
  }

  /** The session is gone: nothing to watch; how its active run ends if Baton killed it. */
  lost(session: CodexSession): Escalation | undefined {
    this.disarm();
    this.timedOut = null;
    return this.killed.get(session);
  }

  /** The watchdog fired: the turn is interrupted, and ends failed with a timeout. */
  private turnWentQuiet(): void {
    const session = this.o.session();
    const ref = this.o.active();
    if (!session || !ref) return;
    const ms = this.quiet.ms;
    const error: ErrorInfo = {
      code: 'timeout',
      message: `Codex reported nothing on the turn for ${ms} ms; it was interrupted`,
    };
    this.timedOut = { attemptId: ref.attemptId, error };
    const cause: InterruptCause = { runStatus: 'failed', lead: `Codex reported nothing on the turn for ${ms} ms and` };
    this.interrupt(ref.attemptId, null, cause).catch((failure: unknown) => {
      // Codex refused the interrupt (or is gone): it cannot be trusted with the turn any more.
      const message = `Codex reported nothing on the turn for ${ms} ms and the interrupt failed (${failure instanceof Error ? failure.message : String(failure)}); its process was killed`;
      return this.escalate(session, { runStatus: 'failed', error: { code: 'timeout', message } });
    });
  }

  /** Kills a session that stopped answering; resolves once it is gone and the run's end is reported. */
  private async escalate(session: CodexSession, cause: Escalation): Promise<void> {
    this.killed.set(session, cause);
    const gone = new Promise<void>((resolve) => session.rpc.onClose(() => resolve()));
    void session.stop('SIGKILL');
    await gone;
  }
}
