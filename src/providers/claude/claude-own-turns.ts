import type { NodeId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';
import type { ClaudeTurnRef } from './claude-tool-items.js';

/**
 * The turns the Claude agent runs of its own. Measured on the agent 2.1.332: when a background
 * task of its own (a subagent, a background command) ends while no turn runs, the agent tells
 * the model in a turn no message asked for (`system/init`, `system/status requesting` with no
 * `user_message_uuids`, the reply, its `result`; no `command_lifecycle`, no `user` frame). A
 * notification that arrives during a turn is folded into that turn's next model request if it
 * makes one, else the own turn follows the turn's end; a message of Baton's queued meanwhile
 * waits behind it (the agent takes the notification first).
 *
 * Each own turn becomes a Baton run: as it begins, the adapter reports `agent.turn` with the ids
 * it picked, and Baton queues a run with them (origin `agent_turn`). Its frames wait here until
 * that run's turn start reaches the adapter, which binds the turn to it (`take`); the
 * normalizer then reads them as that run's. A permission ask of an own turn not bound yet waits
 * for the binding; if a message of Baton's is handed over first (its run is ahead of the own
 * turn's in Baton's queue, while the agent runs the own turn first), the ask is denied, so
 * neither waits on the other.
 */

/** A task's end the agent was told of: the subagent's node (null for another task) and what Baton says of it. */
export interface Notice {
  nodeId: NodeId | null;
  text: string;
}

/** One turn the agent began of its own. */
export interface OwnTurn {
  ref: ClaudeTurnRef;
  /** Its frames, until it is bound to its run. */
  frames: unknown[];
  /** Its `result` came. */
  done: boolean;
}

type Reason = Extract<ProviderEvent, { type: 'agent.turn' }>['reason'];

export class ClaudeOwnTurns {
  /** Notifications since the last turn began (a turn of Baton's may have folded them in). */
  private readonly notices: Notice[] = [];
  /** Own turns not bound to their run yet, oldest first. */
  private readonly unbound: OwnTurn[] = [];
  /** The attempts of own turns (bound or not): their turn start binds, never sends. */
  private readonly attempts = new Set<string>();
  /** Asks of the running own turn, waiting for its binding (null: denied). */
  private held: ((ref: ClaudeTurnRef | null) => void)[] = [];

  constructor(
    private readonly threadId: ThreadId,
    private readonly ids: IdSource,
  ) {}

  /** The agent was told a task of its own ended. */
  notify(notice: Notice): void {
    this.notices.push(notice);
  }

  /** Whether a notification came since the last turn began: the agent's next turn may be its own. */
  get due(): boolean {
    return this.notices.length > 0;
  }

  /** A turn of Baton's began: notifications before it went into it or before it. */
  batonTurnBegan(): void {
    this.notices.length = 0;
  }

  /** The own turn running now, not bound yet (its frames are kept). */
  get running(): OwnTurn | null {
    const last = this.unbound.at(-1);
    return last && !last.done ? last : null;
  }

  /** Whether an attempt is an own turn's (its run's turn start binds it). */
  owns(attemptId: string): boolean {
    return this.attempts.has(attemptId);
  }

  /** The agent began a turn of its own: ids of Baton's for it, and the event that asks Baton for its run. */
  begin(): ProviderEvent {
    const notices = this.notices.splice(0);
    const source = notices.find((n) => n.nodeId !== null) ?? null;
    const ref: ClaudeTurnRef = {
      runId: this.ids.next('run'),
      attemptId: this.ids.next('attempt'),
      rootNodeId: this.ids.next('node'),
      uuid: null,
      providerThreadId: null,
    };
    this.unbound.push({ ref, frames: [], done: false });
    this.attempts.add(ref.attemptId);
    const reason: Reason = source ? 'subagent_notification' : 'task_notification';
    return {
      type: 'agent.turn',
      threadId: this.threadId,
      runId: ref.runId,
      attemptId: ref.attemptId,
      nodeId: ref.rootNodeId,
      messageId: this.ids.next('message'),
      text: notices.length
        ? notices.map((n) => n.text).join('\n')
        : 'The agent began a turn of its own (a background task ended).',
      reason,
      sourceNodeId: source?.nodeId ?? null,
    };
  }

  /** A root-level frame of the running own turn, kept until it is bound. */
  keep(turn: OwnTurn, frame: unknown, isResult: boolean): void {
    turn.frames.push(frame);
    if (!isResult) return;
    turn.done = true;
    // Its asks (if any still wait) went with it.
    this.release(null);
  }

  /** The own turn of an attempt, bound now to its run (on its provider thread): removed from the unbound. */
  take(attemptId: string, providerThreadId: ClaudeTurnRef['providerThreadId']): OwnTurn | null {
    const at = this.unbound.findIndex((t) => t.ref.attemptId === attemptId);
    if (at < 0) return null;
    const [turn] = this.unbound.splice(at, 1);
    turn!.ref.providerThreadId = providerThreadId;
    return turn!;
  }

  /** Where an ask of the running own turn goes: its turn, once bound (null: it will not be). */
  whenBound(): Promise<ClaudeTurnRef | null> {
    if (!this.running) return Promise.resolve(null);
    return new Promise((resolve) => this.held.push(resolve));
  }

  /** The running own turn is bound (its asks go to its run), or will not be (they are denied). */
  release(ref: ClaudeTurnRef | null): void {
    for (const resolve of this.held.splice(0)) resolve(ref);
  }

  /** Own turns that will never be bound (a Stop, the session's end) are let go: their asks are denied. */
  abandon(): void {
    this.release(null);
    this.unbound.length = 0;
    this.notices.length = 0;
  }
}
