import { join } from 'node:path';
import { z } from 'zod';
import type { ProviderHost } from '../../actors/provider-host.js';
import { effectPayloads, type Effect } from '../../domain/effects.js';
import { BatonError, parseOrThrow } from '../../domain/errors.js';
import { ProviderThreadId, type ProviderSessionId, type ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { ForkOrigin } from '../../domain/entities.js';
import { forkOf, payloadOf, turnSettingsOf } from '../effect-payloads.js';
import { agentThreadDir, type AcpAgent } from './acp-agents.js';
import { readTextFile, writeTextFile } from './acp-client-files.js';
import { acpMcpServers, batonMcpServer } from './acp-mcp.js';
import type { McpServers } from '../mcp-servers.js';
import { FrameLog } from '../transport/diagnostics.js';
import type { LineChannel } from '../transport/line-channel.js';
import { unreadableFrameWarning } from '../unreadable-frame.js';
import { connectAgent, type AcpAgentConnection, type AcpClientHandlers } from './acp-connection.js';
import { AcpNormalizer, type AcpFrame } from './acp-normalizer.js';
import { AcpPermissions } from './acp-permissions.js';
import type { AcpSession } from './acp-session.js';
import { forkSession, openSession, takeUpSession, type SessionOpening } from './acp-session-open.js';
import { AcpTerminals } from './acp-terminals.js';
import { applyAcpTurnSettings, modeUpdateOf, sessionSettings } from './acp-turn-settings.js';

export interface AcpAdapterOptions {
  host: ProviderHost;
  agents: ReadonlyMap<string, AcpAgent>;
  /** Per-thread agent folders live under `<dataDir>/acp/<agent>/<thread>/`. */
  dataDir: string;
  /** A cancel whose prompt has not ended this long kills the agent (default 10 s). */
  interruptTimeoutMs?: number;
  /** An agent that leaves a request of Baton's (any but the prompt, `initialize` included) unanswered this long is killed (default 30 s). */
  requestTimeoutMs?: number;
  /** The agent's stdio for one of its processes (recordings wrap the spawned one, replays stand in for it). */
  channelFor?: (threadId: string, sessionId: string, spawn: () => LineChannel) => LineChannel;
  /** Told an agent's raw `initialize` answer each time one of its processes answers (the provider's per-agent declaration). */
  onInitialized?: (agent: string, initialize: unknown) => void;
  /** MCP servers (stdio) every session is opened with, by name; none unless asked for (acp-mcp.ts). */
  mcpServers?: McpServers;
}

/** The agent a thread runs, as its effects carry it (`acpAgent`, a thread setting). */
const AgentName = z.string().min(1);

/**
 * Any ACP agent for one app thread: one agent process and one ACP session, started on the
 * first run (`session/new`), or taken up again by its stored session id (`session/resume`,
 * else `session/load`) after Baton restarted or the agent died. A run's turn is one
 * `session/prompt`; `session/cancel` interrupts it (an acknowledgement only: the prompt's
 * `cancelled` stop reason ends the turn). Baton answers the agent's permission asks, file
 * reads and writes (confined to the thread's cwd) and terminals.
 */
export class AcpThreadAdapter {
  private session: AcpSession | null = null;
  private readonly permissions: AcpPermissions;
  private detached = false;

  constructor(
    readonly threadId: ThreadId,
    private readonly options: AcpAdapterOptions,
  ) {
    this.permissions = new AcpPermissions({
      threadId,
      host: options.host,
      forward: (events) => this.forward(events),
      cancelTurn: () => void this.cancel(),
    });
  }

  get running(): boolean {
    return this.session !== null && !this.session.ended;
  }

  /** The agent process's pid, while one runs. */
  get pid(): number | null {
    return this.session?.connection?.child.pid ?? null;
  }

  /** The live connection (its `initialize` answer, its features), while one runs. */
  get connection(): AcpAgentConnection | null {
    return this.session?.connection ?? null;
  }

  async carryOut(effect: Effect): Promise<void> {
    switch (effect.kind) {
      case 'provider.session.ensure': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        const raw = ProviderThreadId.safeParse(p.providerThreadId);
        await this.ensureSession(this.agentOf(p.acpAgent), raw.success ? raw.data : null);
        return;
      }
      case 'provider.turn.start': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        if (!effect.runId) throw new BatonError('invalid_payload', 'a turn start names its run');
        const agent = this.agentOf(p.acpAgent);
        const fork = forkOf(p);
        // A fork's first run: its provider thread is bound to a fork of the source's session, not a new one.
        const forking =
          fork && p.providerThreadId && !this.options.host.nativeThreadRef(p.providerThreadId) ? fork : null;
        let session = await this.ensureSession(agent, p.providerThreadId ?? null, forking);
        if (session.cancelledBefore && agent.restartAfterCancel && session.providerThreadId) {
          // The agent would mistake this prompt for the cancelled one (acp-agents.ts): a fresh process resumes the session.
          await this.stop();
          session = await this.ensureSession(agent, p.providerThreadId ?? null);
        }
        if (session.normalizer.active)
          throw new BatonError('conflict', 'the ACP agent is still running a prompt on this thread');
        const settings = turnSettingsOf(p);
        await applyAcpTurnSettings(agent.name, session.nativeSessionId!, session.settings, settings, {
          request: (method, params) => {
            const conn = session.connection!;
            return conn.answered(method, conn.agent.request(method, params));
          },
        });
        const ref = {
          runId: effect.runId,
          attemptId: p.attemptId,
          rootNodeId: p.rootNodeId,
          providerThreadId: p.providerThreadId ?? null,
          // A plan-mode turn: the agent's ask to leave plan mode is its proposed plan (acp-proposed-plan.ts).
          planning: settings.interactionMode === 'plan',
        };
        this.forward(session.normalizer.begin(ref));
        this.prompt(session, p.text);
        return;
      }
      case 'provider.turn.interrupt': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        const ref = this.session?.normalizer.active;
        if (!ref || (p.attemptId !== null && ref.attemptId !== p.attemptId)) return;
        await this.cancel();
        if (effect.runId)
          this.forward([{ type: 'interrupt.acknowledged', threadId: this.threadId, runId: effect.runId }]);
        return;
      }
      case 'provider.runtime-request.respond': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        this.permissions.respond(p.requestId, p.decision, this.session);
        return;
      }
      case 'provider.session.stop':
        await this.stop();
        return;
      default:
        throw new BatonError('unsupported', `the ACP adapter does not carry out ${effect.kind}`);
    }
  }

  /** The agent named on the effect: a thread on provider `acp` must name one Baton knows. */
  private agentOf(name: unknown): AcpAgent {
    if (name === undefined || name === null)
      throw new BatonError('invalid_payload', 'an ACP thread names its agent (acpAgent); this effect names none');
    const parsed = parseOrThrow(AgentName, name, 'invalid_payload', 'acpAgent');
    const agent = this.options.agents.get(parsed);
    if (!agent)
      throw new BatonError(
        'invalid_payload',
        `no ACP agent named ${parsed}; known: ${[...this.options.agents.keys()].join(', ')}`,
      );
    return agent;
  }

  /**
   * The live session for this agent and provider thread: a new agent process otherwise,
   * whose session is the provider thread's stored one (resumed or loaded), else a new one,
   * bound to the provider thread before the turn starts.
   */
  private async ensureSession(
    agent: AcpAgent,
    providerThreadId: ProviderThreadId | null,
    fork: ForkOrigin | null = null,
  ): Promise<AcpSession> {
    const live = this.session;
    if (
      live &&
      !live.ended &&
      live.agentName === agent.name &&
      (providerThreadId === null || live.providerThreadId === providerThreadId)
    )
      return live;
    if (live) await this.stop();
    const host = this.options.host;
    const sessionId = host.ids.next('providerSession');
    const cwd = host.threadCwd(this.threadId);
    const dir = agentThreadDir(this.options.dataDir, agent.name, this.threadId);
    const launch = agent.launch({ threadId: this.threadId, dir });
    const session: AcpSession = {
      agentName: agent.name,
      sessionId,
      normalizer: new AcpNormalizer({ threadId: this.threadId, sessionId, ids: host.ids }),
      terminals: new AcpTerminals(() => cwd, launch.env),
      connection: null,
      starting: new AbortController(),
      nativeSessionId: null,
      providerThreadId,
      ended: false,
      killedFor: null,
      settings: sessionSettings(null),
      cancelledBefore: false,
    };
    this.session = session;
    this.forward([this.status(sessionId, 'starting', null)]);
    try {
      const channelFor = this.options.channelFor;
      session.connection = await connectAgent(
        launch,
        cwd,
        this.handlers(session, cwd),
        channelFor && ((spawn) => channelFor(this.threadId, sessionId, spawn)),
        {
          abort: session.starting.signal,
          timeoutMs: this.options.requestTimeoutMs ?? 30_000,
          frames: {
            log: new FrameLog({ dir: join(dir, 'frames'), name: sessionId }),
            onProblem: (problem) => this.forward([unreadableFrameWarning(this.threadId, agent.name, problem)]),
          },
        },
      );
    } catch (error) {
      if (this.session === session) this.session = null;
      const reason = `the ACP agent ${agent.name} did not start: ${describe(error)}`;
      // Not left `starting` for ever; one Baton stopped was reported `stopped` by the stop.
      if (!session.ended) this.forward([this.status(sessionId, 'error', reason)]);
      throw new BatonError(codeOf(error), reason);
    }
    if (session.ended) {
      // Stopped as its answer came in: no turn may use it.
      await session.connection.kill('SIGKILL');
      throw new BatonError('provider_error', `the ACP agent ${agent.name} was stopped as it started`);
    }
    this.options.onInitialized?.(agent.name, session.connection.initialize);
    void session.connection.exited.then(() => this.exited(session));
    // Baton's MCP server, for an agent that takes http servers: a credential of this process's own, revoked as it exits.
    const http = session.connection.initialize.agentCapabilities?.mcpCapabilities?.http === true;
    const baton = http ? (host.orchestratorMcp?.(this.threadId) ?? null) : null;
    if (baton) void session.connection.exited.then(() => baton.revoke());
    const opening = {
      ...this.opening,
      mcpServers: [...this.opening.mcpServers, ...(baton ? [batonMcpServer(baton)] : [])],
    };
    const known = providerThreadId ? host.nativeThreadRef(providerThreadId) : null;
    if (known) await takeUpSession(opening, session, known);
    else if (fork) await forkSession(opening, session, agent, cwd, fork);
    else await openSession(opening, session, cwd);
    this.forward([this.status(sessionId, 'ready', null)]);
    return session;
  }

  /** Sends the prompt; its answer (or the request's failure) ends the turn. */
  private prompt(session: AcpSession, text: string): void {
    const conn = session.connection!;
    const sessionId = session.nativeSessionId!;
    conn.agent
      .request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })
      .then(
        (response): AcpFrame => ({ kind: 'stop', stopReason: response.stopReason }),
        (error: unknown): AcpFrame => ({
          kind: 'failed',
          message: `the ACP agent failed the prompt: ${describe(error)}`,
        }),
      )
      .then((frame) => {
        // An agent that died mid-prompt is reported as lost by its exit, not as a failed prompt.
        // Its stdout ends before Node sees the exit, and that end is what failed the request.
        if (session.ended || (frame.kind === 'failed' && agentGone(conn))) return;
        if (frame.kind === 'stop' && frame.stopReason === 'cancelled') session.cancelledBefore = true;
        this.forward(session.normalizer.normalize(frame));
      });
  }

  /**
   * Cancels the running prompt: pending asks are answered `cancelled`, terminals killed, and
   * `session/cancel` sent. If the prompt has not ended within the interrupt timeout, the
   * agent is killed and the run ends interrupted.
   */
  private async cancel(): Promise<void> {
    const session = this.session;
    const conn = session?.connection;
    if (!session || !conn || !session.normalizer.active || !session.nativeSessionId) return;
    session.normalizer.interruptRequested = true;
    this.permissions.cancelAll('the turn was interrupted');
    await session.terminals.killAll();
    await conn.agent.notify('session/cancel', { sessionId: session.nativeSessionId }).catch(() => undefined);
    const attempt = session.normalizer.active?.attemptId;
    const timer = setTimeout(() => {
      if (this.session !== session || session.normalizer.active?.attemptId !== attempt) return;
      session.killedFor = {
        runStatus: 'interrupted',
        error: { code: 'timeout', message: 'the ACP agent did not end its prompt after session/cancel; it was killed' },
      };
      void conn.kill('SIGKILL');
    }, this.options.interruptTimeoutMs ?? 10_000);
    timer.unref();
  }

  /** What Baton answers this session's agent. */
  private handlers(session: AcpSession, cwd: string): AcpClientHandlers {
    return {
      update: (params) => {
        // The agent changed its mode itself (plan mode entered or left): the next turn sets Baton's again.
        const mode = modeUpdateOf(params.update);
        if (mode !== null) session.settings.offer.currentMode = mode;
        this.forward(session.normalizer.normalize({ kind: 'update', update: params.update }));
      },
      requestPermission: (params) => this.permissions.ask(session, params),
      readTextFile: async (params) => readTextFile(cwd, params),
      writeTextFile: async (params) => writeTextFile(cwd, params),
      createTerminal: async (params) => session.terminals.create(params),
      terminalOutput: async (params) => session.terminals.output(params),
      waitForTerminalExit: (params) => session.terminals.waitForExit(params),
      killTerminal: async (params) => session.terminals.kill(params),
      releaseTerminal: async (params) => session.terminals.release(params),
    };
  }

  /** The agent process ended: on purpose (nothing more), or lost (its run ends by policy). */
  private exited(session: AcpSession): void {
    void session.terminals.killAll();
    if (session.ended || this.session !== session) return;
    this.session = null;
    session.ended = true;
    this.permissions.cancelAll('the ACP agent is gone');
    const active = session.normalizer.active;
    const stderr = session.connection?.stderr() ?? '';
    this.forward([
      active
        ? {
            type: 'runtime.lost',
            threadId: this.threadId,
            sessionId: session.sessionId,
            ...(session.killedFor ?? {
              runStatus: 'failed',
              error: {
                code: 'provider_error',
                message: `the ACP agent ${session.agentName} exited${stderr ? ` (${stderr.slice(-300)})` : ''}`,
              },
            }),
          }
        : this.status(session.sessionId, 'stopped', `the ACP agent ${session.agentName} exited`),
    ]);
  }

  /** What the session openings need of the adapter. */
  private get opening(): SessionOpening {
    return {
      host: this.options.host,
      threadId: this.threadId,
      dataDir: this.options.dataDir,
      mcpServers: acpMcpServers(this.options.mcpServers),
      request: (session, send) => this.request(session, send),
      report: (events) => this.report(events),
      stop: () => this.stop(),
    };
  }

  /** A request to the agent; if it dies first, the request fails with its stderr. */
  private async request<T>(session: AcpSession, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      await this.stop();
      if (codeOf(error) === 'timeout') throw error;
      throw new BatonError('provider_error', `the ACP agent ${session.agentName} refused: ${describe(error)}`);
    }
  }

  /** Releases the session on purpose: the agent process (and its terminals) are killed. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.session = null;
    session.ended = true;
    session.starting.abort();
    this.permissions.cancelAll('the ACP session was stopped', { answer: false });
    await session.terminals.killAll();
    await session.connection?.kill(signal);
    this.forward([this.status(session.sessionId, 'stopped', 'released')]);
  }

  /** Shutdown: stop the agent and report nothing more; resolves once it is gone. */
  detach(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.detached = true;
    return this.stop(signal);
  }

  private async report(events: ProviderEvent[]): Promise<void> {
    for (const event of events) if (!this.detached) await this.options.host.ingest(event);
  }

  private forward(events: ProviderEvent[]): void {
    if (this.detached) return;
    // ingest() reports refusals itself; a throw here would only be a closed store at shutdown.
    for (const event of events) void this.options.host.ingest(event).catch(() => undefined);
  }

  private status(
    sessionId: ProviderSessionId,
    status: 'starting' | 'ready' | 'stopped' | 'error',
    reason: string | null,
  ): ProviderEvent {
    return { type: 'session.status', threadId: this.threadId, sessionId, provider: 'acp', status, reason };
  }
}

/** The agent process is gone or going: it exited, or its stdout (the connection) ended. */
const agentGone = (conn: AcpAgentConnection): boolean =>
  conn.child.exitCode !== null || conn.child.signalCode !== null || conn.child.stdout?.readableEnded === true;

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && 'message' in error) return String(error.message);
  return String(error);
}

/** A request Baton gave up on is a timeout; anything else the agent did is its error. */
const codeOf = (error: unknown): 'timeout' | 'provider_error' =>
  error instanceof BatonError && error.code === 'timeout' ? 'timeout' : 'provider_error';
