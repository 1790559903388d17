import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { query, type Query, type SDKUserMessage, type SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import type { ProviderHost } from '../../actors/provider-host.js';
import { effectPayloads, type Effect } from '../../domain/effects.js';
import { BatonError } from '../../domain/errors.js';
import { ProviderThreadId, type ProviderSessionId, type ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import { payloadOf } from '../effect-payloads.js';
import {
  claudeEnv,
  claudeOptions,
  claudeSessionDirs,
  ensureClaudeSessionDirs,
  type ClaudeEndpoint,
} from './claude-environment.js';
import { createClaudeNormalizer, type ClaudeNormalizer } from './claude-normalizer.js';
import { ClaudePermissions } from './claude-permissions.js';
import { spawnAgent, type AgentProcess, type AgentProcessFactory } from './claude-process.js';

export interface ClaudeAdapterOptions {
  host: ProviderHost;
  endpoint: ClaudeEndpoint;
  /** Per-thread agent folders live under `<dataDir>/claude/<thread>/`. */
  dataDir: string;
  /** The real key for a configured endpoint; the dummy otherwise. */
  apiKey?: string;
  /** Where the agent process comes from (record and replay channels give theirs); default: the real binary. */
  processFor?: AgentProcessFactory;
}

/** One live agent: the user messages waiting to be handed over, its normalizer, its process. */
interface AgentState {
  sessionId: ProviderSessionId;
  normalizer: ClaudeNormalizer;
  /** The provider thread it was started (or resumed) for. */
  providerThreadId: ProviderThreadId | null;
  inbox: SDKUserMessage[];
  wake: (() => void) | null;
  ended: boolean;
  child: AgentProcess | null;
  exited: Promise<void>;
  stderr: string;
}

/** ...and its query. */
interface AgentSession extends AgentState {
  query: Query;
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
  /** Set when Baton shuts down: nothing more is reported. */
  private detached = false;
  /** The attempt Baton asked to interrupt, and whether its acknowledgement was reported (before its end, once). */
  private interrupting: string | null = null;
  /** An attempt interrupted before the agent began it: interrupted when it begins. */
  private interruptOnStart: string | null = null;
  private acknowledged: string | null = null;

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
  }

  get running(): boolean {
    return this.session !== null && !this.session.ended;
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
        const session = this.ensureSession(providerThreadId);
        const uuid = randomUUID();
        const known = providerThreadId ? this.options.host.nativeThreadRef(providerThreadId) : null;
        session.normalizer.begin(
          { runId: effect.runId, attemptId: p.attemptId, rootNodeId: p.rootNodeId, uuid, providerThreadId },
          known,
        );
        session.inbox.push({
          type: 'user',
          message: { role: 'user', content: p.text },
          parent_tool_use_id: null,
          uuid,
        });
        session.wake?.();
        return;
      }
      case 'provider.turn.interrupt': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        return this.interrupt(p.attemptId, effect.runId);
      }
      case 'provider.runtime-request.respond': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        this.permissions.respond(p.requestId, p.decision, this.session);
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
    const host = this.options.host;
    const sessionId = host.ids.next('providerSession');
    const normalizer = createClaudeNormalizer({ threadId: this.threadId, sessionId, ids: host.ids });
    const resume = providerThreadId ? host.nativeThreadRef(providerThreadId) : null;
    const dirs = ensureClaudeSessionDirs(claudeSessionDirs(join(this.options.dataDir, 'claude'), this.threadId));
    const env = claudeEnv({
      endpoint: this.options.endpoint,
      dirs,
      ...(this.options.apiKey ? { apiKey: this.options.apiKey } : {}),
    });
    this.forward([this.status(sessionId, 'starting', null)]);
    let markExited: () => void = () => undefined;
    const exited = new Promise<void>((resolve) => (markExited = resolve));
    const state: AgentState = {
      sessionId,
      normalizer,
      providerThreadId,
      inbox: [],
      wake: null,
      ended: false,
      child: null,
      exited,
      stderr: '',
    };
    const running = query({
      prompt: this.inbox(state),
      options: {
        ...claudeOptions({
          cwd: host.threadCwd(this.threadId),
          model: this.options.endpoint.model,
          env,
          canUseTool: this.permissions.canUseTool(state),
          ...(resume ? { resume } : {}),
        }),
        spawnClaudeCodeProcess: (spawnOptions: SpawnOptions) => {
          const real = () => spawnAgent(spawnOptions);
          const processFor = this.options.processFor;
          const child = processFor
            ? processFor({ threadId: this.threadId, sessionId, options: spawnOptions }, real)
            : real();
          state.child = child;
          child.stderr?.on('data', (chunk: Buffer) => (state.stderr = (state.stderr + String(chunk)).slice(-4000)));
          child.once('exit', () => markExited());
          child.once('error', () => markExited());
          return child;
        },
      },
    });
    const session: AgentSession = Object.assign(state, { query: running });
    this.session = session;
    void this.pump(session);
    this.forward([this.status(sessionId, 'ready', null)]);
    return session;
  }

  /** The user messages of a session, handed to the SDK as it asks for them. */
  private async *inbox(session: AgentState): AsyncGenerator<SDKUserMessage> {
    while (!session.ended) {
      const next = session.inbox.shift();
      if (next) yield next;
      else await new Promise<void>((resolve) => (session.wake = resolve));
    }
  }

  /** Reads the agent's messages until the query ends; an end Baton did not ask for is the runtime lost. */
  private async pump(session: AgentSession): Promise<void> {
    let reason = 'the Claude agent ended its session';
    try {
      for await (const message of session.query) this.forward(session.normalizer.normalize(message));
    } catch (error) {
      reason = `the Claude agent failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const own = this.session === session;
    session.ended = true;
    session.wake?.();
    if (!own) {
      this.forward([this.status(session.sessionId, 'stopped', 'released')]);
      return;
    }
    this.session = null;
    this.permissions.denyAll('the Claude agent is gone');
    // A turn the agent had not begun yet dies with it too.
    const active = session.normalizer.active ?? session.normalizer.waiting;
    this.forward([
      active
        ? {
            type: 'runtime.lost',
            threadId: this.threadId,
            sessionId: session.sessionId,
            runStatus: 'failed',
            error: {
              code: 'provider_error',
              message: `${reason}${session.stderr ? ` (${session.stderr.slice(-300)})` : ''}`,
            },
          }
        : this.status(session.sessionId, 'stopped', reason),
    ]);
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

  private async askInterrupt(session: AgentSession, attemptId: string, runId: Effect['runId']): Promise<void> {
    session.normalizer.interruptRequested = true;
    this.interrupting = attemptId;
    this.permissions.denyAll('The user interrupted the turn.');
    await session.query.interrupt();
    if (runId && this.acknowledged !== attemptId) {
      this.acknowledged = attemptId;
      this.forward([{ type: 'interrupt.acknowledged', threadId: this.threadId, runId }]);
    }
  }

  private status(
    sessionId: ProviderSessionId,
    status: 'starting' | 'ready' | 'running' | 'waiting' | 'stopped',
    reason: string | null,
  ): ProviderEvent {
    return { type: 'session.status', threadId: this.threadId, sessionId, provider: 'claude', status, reason };
  }

  /** Forwards events in order; an interrupted turn's acknowledgement is reported before its end. */
  private forward(events: ProviderEvent[]): void {
    if (this.detached) return;
    for (const event of events) {
      if (
        event.type === 'turn.completed' &&
        this.interrupting === event.attemptId &&
        this.acknowledged !== event.attemptId
      ) {
        this.acknowledged = event.attemptId;
        void this.options.host.ingest({ type: 'interrupt.acknowledged', threadId: this.threadId, runId: event.runId });
      }
      // ingest() reports refusals itself; a throw here would only be a closed store at shutdown.
      void this.options.host.ingest(event).catch(() => undefined);
      const session = this.session;
      if (event.type === 'turn.started' && event.attemptId === this.interruptOnStart && session) {
        this.interruptOnStart = null;
        this.askInterrupt(session, event.attemptId, event.runId).catch(() => undefined);
      }
    }
  }

  /** Releases the session on purpose: its input ends, the query closes and the process is killed. */
  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const session = this.session;
    if (!session) return Promise.resolve();
    this.session = null;
    this.permissions.denyAll('the Claude session was stopped');
    session.ended = true;
    session.wake?.();
    session.query.close();
    session.child?.kill(signal);
    return session.child ? session.exited : Promise.resolve();
  }

  /** Shutdown: stop the process and report nothing more (the store may be closing); resolves once it is gone. */
  detach(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.detached = true;
    return this.stop(signal);
  }
}
