import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ProviderHost } from '../../actors/provider-host.js';
import { effectPayloads, type Effect } from '../../domain/effects.js';
import { BatonError } from '../../domain/errors.js';
import { ProviderThreadId, type ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import { forkOf, payloadOf } from '../effect-payloads.js';
import {
  claudeSessionDirs,
  ensureClaudeSessionDirs,
  type ClaudeEndpoint,
  type ClaudeSessionDirs,
} from './claude-environment.js';
import { forkAtTurn, rollBack, watchResume, type ConversationScope, type ResumeWatch } from './claude-conversation.js';
import { ClaudePermissions } from './claude-permissions.js';
import type { AgentProcessFactory } from './claude-process.js';
import { handOver, type AgentSession } from './claude-agent-session.js';
import { sessionEndEvents, sessionStatus, startThreadSession } from './claude-session-lifecycle.js';
import type { McpServers } from '../mcp-servers.js';
import { endAgent } from '../agent-exit.js';
import { TurnClocks } from './claude-turn-clocks.js';
import { applyTurnSettings } from './claude-turn-settings.js';

export interface ClaudeAdapterOptions {
  host: ProviderHost;
  endpoint: ClaudeEndpoint;
  /** Per-thread agent folders live under `<dataDir>/claude/<thread>/`. */
  dataDir: string;
  /** The real key for a configured endpoint; the dummy otherwise. */
  apiKey?: string;
  /** Where the agent process comes from (record and replay channels give theirs); default: the real binary. */
  processFor?: AgentProcessFactory;
  /** The user's MCP servers (stdio), given to every session. */
  mcpServers?: McpServers;
  /** A turn with no word from the agent this long is interrupted and fails (default 5 min). */
  turnIdleTimeoutMs?: number;
  /** An interrupt whose turn has not ended this long kills the agent (default 10 s). */
  interruptTimeoutMs?: number;
}

/**
 * The real Claude agent for one app thread: one long-lived streaming-input `query()` per
 * session, fed user messages from a queue, its SDK messages normalized into provider events.
 * The session id is the native thread: a new session (after a Baton restart or a lost
 * process) resumes it by id. Permission asks (`canUseTool`) become approval requests that
 * wait for the user's answer; an interrupt denies a pending one.
 */
export class ClaudeThreadAdapter {
  private session: AgentSession | null = null;
  private readonly permissions: ClaudePermissions;
  private readonly clocks: TurnClocks;
  /** Set when Baton shuts down: nothing more is reported. */
  private detached = false;
  /** The attempt Baton asked to interrupt, and whether its acknowledgement was reported (before its end, once). */
  private interrupting: string | null = null;
  /** An attempt interrupted before the agent began it: interrupted when it begins. */
  private interruptOnStart: string | null = null;
  private acknowledged: string | null = null;
  /** Attempts of turns the agent began of its own (across its sessions): their turn start binds, never sends. */
  private readonly ownAttempts = new Set<string>();

  constructor(
    readonly threadId: ThreadId,
    private readonly options: ClaudeAdapterOptions,
  ) {
    this.permissions = new ClaudePermissions({
      threadId,
      host: options.host,
      forward: (events) => this.forward(events),
      isCurrent: (session) => this.session === session,
    });
    this.clocks = new TurnClocks({
      turnIdleTimeoutMs: options.turnIdleTimeoutMs ?? 300_000,
      interruptTimeoutMs: options.interruptTimeoutMs ?? 10_000,
      onQuiet: () => {
        const session = this.session;
        const ref = session?.normalizer.active ?? session?.normalizer.waiting;
        if (session && ref) void this.askInterrupt(session, ref.attemptId, null, 'failed', 'Claude went quiet and');
      },
      onUnanswered: (escalation) => {
        const session = this.session;
        if (!session) return;
        session.killedFor = escalation;
        session.child?.kill('SIGKILL');
      },
    });
  }

  get running(): boolean {
    return this.session !== null && !this.session.ended;
  }

  /** Whether the agent works with no run of Baton's: a background subagent, or a turn of its own not yet bound (its session is kept). */
  get backgroundWork(): boolean {
    const session = this.session;
    return session !== null && !session.ended && session.normalizer.backgroundWork;
  }

  /** The agent process's pid, while one runs. */
  get pid(): number | null {
    return this.session?.child?.pid ?? null;
  }

  /** Carries out one outbox effect. Throws a typed error when it cannot. */
  async carryOut(effect: Effect): Promise<void> {
    switch (effect.kind) {
      case 'provider.session.ensure': {
        const raw = ProviderThreadId.safeParse(effect.payload.providerThreadId);
        this.ensureSession(raw.success ? raw.data : null);
        return;
      }
      case 'provider.turn.start': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        if (!effect.runId) throw new BatonError('invalid_payload', 'a turn start names its run');
        const providerThreadId = p.providerThreadId ?? null;
        if (this.ownAttempts.has(p.attemptId)) return this.bindOwnTurn(p.attemptId, providerThreadId);
        const fork = forkOf(p);
        if (fork && providerThreadId && !this.options.host.nativeThreadRef(providerThreadId)) {
          // A fork's first run: its provider thread is bound to a fork of the source's session first.
          await this.report([await forkAtTurn(this.scope, providerThreadId, fork)]);
          if (this.session) await this.stop();
        }
        const session = this.ensureSession(providerThreadId);
        await applyTurnSettings(session.query, p, this.options.endpoint.model).catch((e: unknown) =>
          this.refused(session, e),
        );
        const uuid = randomUUID();
        const known = providerThreadId ? this.options.host.nativeThreadRef(providerThreadId) : null;
        session.normalizer.begin(
          { runId: effect.runId, attemptId: p.attemptId, rootNodeId: p.rootNodeId, uuid, providerThreadId },
          known,
        );
        handOver(session, { type: 'user', message: { role: 'user', content: p.text }, parent_tool_use_id: null, uuid });
        this.clocks.activity(p.attemptId, this.permissions.pending > 0);
        return;
      }
      case 'provider.turn.interrupt': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        if (p.reason === 'stop_subagents') return this.stopAgentWork();
        if (p.reason === 'agent_turn_refused' && p.attemptId) return this.stopAgentWork(p.attemptId);
        return this.interrupt(p.attemptId, effect.runId);
      }
      case 'provider.runtime-request.respond': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        this.permissions.respond(p.requestId, p.decision, this.session, p.answers);
        return;
      }
      case 'provider.thread.rollback': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        // The session is read and forked with no agent writing it; the next turn starts one on the fork.
        await this.stop();
        await this.report(await rollBack(this.scope, p.providerThreadId, p.runOrdinal));
        return;
      }
      case 'provider.session.stop':
        this.stop();
        return;
      default:
        throw new BatonError('unsupported', `the Claude adapter does not carry out ${effect.kind}`);
    }
  }

  /** The live session for this provider thread: started (resuming its session id, if it has one) when there is none. */
  private ensureSession(providerThreadId: ProviderThreadId | null): AgentSession {
    const live = this.session;
    if (live && !live.ended && (providerThreadId === null || live.providerThreadId === providerThreadId)) return live;
    if (live) this.stop();
    return startThreadSession(
      {
        ...this.scope,
        endpoint: this.options.endpoint,
        apiKey: this.options.apiKey,
        processFor: this.options.processFor,
        mcpServers: this.options.mcpServers,
        forward: (events) => this.forward(events),
        canUseTool: (state) => this.permissions.canUseTool(state),
        onElicitation: (state) => this.permissions.onElicitation(state),
        adopt: (session) => {
          this.session = session;
          return this.pump(session);
        },
      },
      providerThreadId,
    );
  }

  /**
   * The run Baton queued for a turn the agent began of its own starts: the turn is bound to it
   * (nothing is sent). A turn lost with its agent fails the run.
   */
  private bindOwnTurn(attemptId: string, providerThreadId: ProviderThreadId | null): void {
    const session = this.session;
    const events = session && !session.ended ? session.normalizer.adopt(attemptId, providerThreadId) : null;
    if (!events)
      throw new BatonError('not_resumable', "the Claude agent's own turn was lost with its process; nothing to run");
    this.forward(events);
    this.clocks.activity(session!.normalizer.active?.attemptId ?? null, this.permissions.pending > 0);
  }

  /**
   * A Stop: the agent's work that outlives its runs ends. The agent's interrupt stops every
   * background task of its own (its subagents end `stopped`, their asks withdrawn) and, with no
   * turn running, no turn of its own follows (measured); a turn running is interrupted as the
   * run's own interrupt would. Own turns not bound yet are let go (the Stop cancels their runs).
   * The same when Baton took no run for an own turn (`refused`: its thread is stopped, say).
   */
  private async stopAgentWork(refused: string | null = null): Promise<void> {
    const session = this.session;
    if (!session || session.ended) return;
    const n = session.normalizer;
    const ref = refused ? null : (n.active ?? n.waiting);
    if ((!n.backgroundWork && !ref) || (refused && (n.active || !n.ownsTurn(refused)))) return;
    n.abandonOwnTurns();
    if (ref) return this.interrupt(ref.attemptId, null);
    await Promise.race([session.query.interrupt(), session.exited]);
    this.permissions.denyAll('The user stopped the thread.');
  }

  /** Reads the agent's messages until the query ends; an end Baton did not ask for is the runtime lost. */
  private async pump(session: AgentSession): Promise<void> {
    let reason = 'the Claude agent ended its session';
    try {
      for await (const message of session.query) {
        watchResume(session, message);
        const events = session.normalizer.normalize(message);
        for (const e of events) if (e.type === 'agent.turn') this.ownAttempts.add(e.attemptId);
        this.forward(events);
      }
    } catch (error) {
      reason = `the Claude agent failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const own = this.session === session;
    session.ended = true;
    if (own) this.clocks.stop();
    session.wake?.();
    if (!own) {
      this.forward([sessionStatus(this.threadId, session.sessionId, 'stopped', 'released')]);
      return;
    }
    this.session = null;
    this.permissions.denyAll('the Claude agent is gone');
    this.forward(sessionEndEvents(this.threadId, session, reason));
  }

  /**
   * Asks the agent to stop the turn. Its answer is an acknowledgement; the turn's `result`
   * (`error_during_execution`), which follows, ends it. A pending permission ask is denied.
   */
  private async interrupt(attemptId: string | null, runId: Effect['runId']): Promise<void> {
    const session = this.session;
    if (!session) return;
    const ref = session.normalizer.active;
    const waiting = session.normalizer.waiting;
    if (!ref && waiting && (attemptId === null || waiting.attemptId === attemptId)) {
      // The agent has not begun the turn yet: it is interrupted as soon as it does.
      this.interrupting = waiting.attemptId;
      this.interruptOnStart = waiting.attemptId;
      return;
    }
    if (!ref || (attemptId !== null && ref.attemptId !== attemptId)) return;
    return this.askInterrupt(session, ref.attemptId, runId);
  }

  /**
   * Asks the agent to interrupt a turn it runs; if the turn has not ended within the
   * interrupt timeout (a frozen agent does not even answer), the agent is killed and the
   * run ends `runStatus` with a timeout.
   */
  private async askInterrupt(
    session: AgentSession,
    attemptId: string,
    runId: Effect['runId'],
    runStatus: 'interrupted' | 'failed' = 'interrupted',
    lead = 'Claude was asked to interrupt, and',
  ): Promise<void> {
    session.normalizer.interruptRequested = true;
    // The user's interrupt is acknowledged before its end; the watchdog's is not the user's.
    if (runStatus === 'interrupted') this.interrupting = attemptId;
    this.clocks.interruptAsked(attemptId, runStatus, lead);
    this.permissions.denyAll('The user interrupted the turn.');
    const answered = await Promise.race([session.query.interrupt().then(() => true), session.exited.then(() => false)]);
    if (answered && runId && this.acknowledged !== attemptId) {
      this.acknowledged = attemptId;
      this.forward([{ type: 'interrupt.acknowledged', threadId: this.threadId, runId }]);
    }
  }

  /**
   * A turn start that failed on a session the agent would not resume: its end reported the
   * provider thread failed, and the run goes on in the replacement (as for Codex).
   */
  private async refused(session: AgentSession, error: unknown): Promise<never> {
    if (session.resumed && !session.began) {
      await session.pumped;
      if (!session.began)
        throw new BatonError(
          'not_resumable',
          `Claude could not resume session ${session.resumed}; the run goes on in its replacement`,
        );
    }
    throw error;
  }

  private get scope(): ConversationScope {
    return { host: this.options.host, threadId: this.threadId, dirsOf: (t) => this.dirsOf(t) };
  }

  /** A thread's agent folders (made if need be). */
  private dirsOf(threadId: string): ClaudeSessionDirs {
    return ensureClaudeSessionDirs(claudeSessionDirs(join(this.options.dataDir, 'claude'), threadId));
  }

  /** Reports events and waits until the runtime took them (what comes next reads what they bound). */
  private async report(events: ProviderEvent[]): Promise<void> {
    for (const event of events) if (!this.detached) await this.options.host.ingest(event);
  }

  /** Forwards events in order; an interrupted turn's acknowledgement is reported before its end. */
  private forward(events: ProviderEvent[]): void {
    if (this.detached) return;
    for (const given of events) {
      let event = given;
      if (
        event.type === 'turn.completed' &&
        this.interrupting === event.attemptId &&
        this.acknowledged !== event.attemptId
      ) {
        this.acknowledged = event.attemptId;
        void this.options.host.ingest({ type: 'interrupt.acknowledged', threadId: this.threadId, runId: event.runId });
      }
      event = this.clocks.seen(event);
      // ingest() reports refusals itself; a throw here would only be a closed store at shutdown.
      void this.options.host.ingest(event).catch(() => undefined);
      const session = this.session;
      if (session && event.type !== 'turn.completed') {
        const ref = session.normalizer.active ?? session.normalizer.waiting;
        this.clocks.activity(ref?.attemptId ?? null, this.permissions.pending > 0);
      }
      if (event.type === 'turn.started' && event.attemptId === this.interruptOnStart && session) {
        this.interruptOnStart = null;
        this.askInterrupt(session, event.attemptId, event.runId).catch(() => undefined);
      }
    }
  }

  /**
   * Releases the session on purpose: its input ends, the query closes and the process is
   * killed (its background subagents with it), SIGKILLed should `signal` not end it in time.
   */
  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const session = this.session;
    if (!session) return Promise.resolve();
    this.session = null;
    this.clocks.stop();
    this.permissions.denyAll('the Claude session was stopped');
    this.forward(session.normalizer.closeSubagents());
    session.ended = true;
    session.wake?.();
    session.query.close();
    const child = session.child;
    // ChildProcess.kill does nothing once the process has exited, so a late SIGKILL hits no one else.
    return child ? endAgent((s) => void child.kill(s), session.exited, signal) : Promise.resolve();
  }

  /** Shutdown: stop the process and report nothing more (the store may be closing); resolves once it is gone. */
  detach(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.detached = true;
    return this.stop(signal);
  }
}
