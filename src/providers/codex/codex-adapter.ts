import { BatonError } from '../../domain/errors.js';
import { effectPayloads, type Effect } from '../../domain/effects.js';
import { forkOf, payloadOf } from '../effect-payloads.js';
import type { ProviderSessionId, ProviderThreadId, RuntimeRequestId, ThreadId } from '../../domain/ids.js';
import type { ApprovalDecision } from '../../domain/statuses.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { LineChannel } from '../transport/line-channel.js';
import type { CodexModelEndpoint } from './codex-home.js';
import { createCodexNormalizer, type CodexNormalizer, type TurnRef } from './codex-normalizer.js';
import { codexReply } from './codex-replies.js';
import { CodexSession } from './codex-session.js';
import { StartingSession, startCodexSession } from './codex-session-start.js';
import { openNativeThread, revertNativeThread } from './codex-native-thread.js';
import { codexTurnOverrides } from './codex-turn-settings.js';
import { turnSettingsOf, type TurnSettings } from '../effect-payloads.js';
import type { ForkOrigin } from '../../domain/entities.js';
import type { CodexHost } from './codex-host.js';
import { CodexInterrupts } from './codex-interrupts.js';
import { unreadableFrameWarning } from '../unreadable-frame.js';

export type { CodexHost } from './codex-host.js';

export interface CodexAdapterOptions {
  host: CodexHost;
  endpoint: CodexModelEndpoint;
  /** Per-thread CODEX_HOME folders and frame logs live here. */
  dataDir: string;
  /** A channel per session instead of the real binary: a replay, or a recording of the binary. */
  channelFor?: (sessionId: string, spawn: () => LineChannel) => LineChannel;
  /** How long Codex has to acknowledge an interrupt, and then to end the turn, before it is killed. */
  interruptTimeoutMs?: number;
  /** A turn with no word from Codex for this long (and no question waiting on the user) is timed out. */
  turnIdleTimeoutMs?: number;
  /** How long Codex has to answer each request of Baton's (the handshake included); 30 s by default. */
  requestTimeoutMs?: number;
}

/**
 * Codex for one app thread: one `codex app-server` session, lazily started, and the
 * native thread it drives. It carries out the provider effects of the outbox and turns
 * what Codex says into provider events. Losing the process is reported as `runtime.lost`;
 * the next effect starts a new session and resumes the native thread.
 */
export class CodexThreadAdapter {
  private session: CodexSession | null = null;
  /** A session between its spawn and its handshake's end: a stop meanwhile kills it. */
  private readonly starting = new StartingSession();
  private nativeThreadId: string | null = null;
  /** The provider thread `nativeThreadId` was loaded for: a replacement is never served the thread it replaced. */
  private loadedFor: string | null = null;
  /** The current (or last) session's normalizer; none before the first session. */
  private normalizer: CodexNormalizer | null = null;
  private active: TurnRef | null = null;
  /** Set when Baton shuts down: nothing more is reported. */
  private detached = false;
  /** Problem counts of sessions that are gone. */
  private unreadable = 0;
  private unknownBefore = 0;
  /** The turn watchdog, the interrupts, and the kill of a Codex that does not answer them in time. */
  private readonly interrupts: CodexInterrupts;

  constructor(
    readonly threadId: ThreadId,
    private readonly options: CodexAdapterOptions,
  ) {
    this.interrupts = new CodexInterrupts({
      threadId,
      host: options.host,
      turnIdleTimeoutMs: options.turnIdleTimeoutMs ?? 300_000,
      interruptTimeoutMs: options.interruptTimeoutMs ?? 10_000,
      session: () => this.session,
      normalizer: () => this.current(),
      nativeThreadId: () => this.nativeThreadId,
      active: () => this.active,
      forward: (events) => this.forward(events),
    });
  }

  /** The normalizer of the running session: an effect that needs one before any session started cannot be carried out. */
  private current(): CodexNormalizer {
    if (!this.normalizer) throw new BatonError('provider_error', 'the Codex session is not running');
    return this.normalizer;
  }

  /** Frames Codex sent that Baton could not use: unreadable ones and unknown methods. */
  get frameProblems(): { unreadable: number; unknown: number } {
    return {
      unreadable: this.unreadable + (this.session?.rpc.problemCount ?? 0),
      unknown: this.unknownBefore + (this.normalizer?.unknown ?? 0),
    };
  }

  get running(): boolean {
    return this.session !== null && !this.session.rpc.isClosed;
  }

  get pid(): number | null {
    return this.session?.pid ?? null;
  }

  /** Carries out one outbox effect. Throws a typed error when it cannot. */
  async carryOut(effect: Effect): Promise<void> {
    switch (effect.kind) {
      case 'provider.turn.start': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        if (!effect.runId) throw new BatonError('invalid_payload', 'a turn start names its run');
        return this.startTurn(
          { runId: effect.runId, attemptId: p.attemptId, rootNodeId: p.rootNodeId },
          p.text,
          p.providerThreadId ?? null,
          turnSettingsOf(p),
          forkOf(p),
        );
      }
      case 'provider.turn.steer': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        const session = CodexSession.assertReady(this.session);
        const turnId = await this.nativeTurn(String(p.attemptId));
        await session.turnSteer(this.nativeThreadId!, turnId, p.text);
        return;
      }
      case 'provider.turn.interrupt':
        return this.interrupts.interrupt(
          String(payloadOf(effectPayloads[effect.kind], effect).attemptId),
          effect.runId,
          {
            runStatus: 'interrupted',
            lead: 'Codex',
          },
        );
      case 'provider.runtime-request.respond': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        return this.respond(p.requestId, p.decision, p.answers);
      }
      case 'provider.thread.rollback': {
        const p = payloadOf(effectPayloads[effect.kind], effect);
        return this.revert(p.runOrdinal, p.providerThreadId);
      }
      case 'provider.session.stop':
        void this.stop();
        return;
      default:
        throw new BatonError('unsupported', `the Codex adapter does not carry out ${effect.kind}`);
    }
  }

  private async startTurn(
    ref: TurnRef,
    text: string,
    providerThreadId: ProviderThreadId | null,
    settings: TurnSettings,
    fork: ForkOrigin | null,
  ): Promise<void> {
    const { session, normalizer } = await this.ensureSession();
    // A thread that could not be resumed was reported failed: this attempt ends, the run goes on in its replacement.
    if (!(await this.ensureThread(session, providerThreadId, settings.model, fork))) {
      throw new BatonError(
        'not_resumable',
        `Codex could not resume provider thread ${providerThreadId}; the run goes on in its replacement`,
      );
    }
    this.active = ref;
    normalizer.pendingStart = ref;
    this.interrupts.quiet.arm();
    // The run's settings go on every turn: a resumed or long-lived Codex thread takes the current ones.
    const overrides = codexTurnOverrides(
      settings,
      this.options.host.threadCwd(this.threadId),
      this.options.endpoint.model,
    );
    try {
      await session.turnStart(this.nativeThreadId!, text, overrides, {
        onTurnId: (id) => normalizer.bindTurn(id, ref),
      });
    } catch (error) {
      // The turn never started: there is nothing to watch.
      if (this.active === ref) this.active = null;
      this.interrupts.quiet.disarm();
      throw error;
    }
  }

  /** A frame from Codex is the turn's sign of life; a question waiting on the user pauses the watch. */
  private turnActivity(): void {
    if (this.active && (this.normalizer?.requests.size ?? 0) === 0) this.interrupts.quiet.arm();
    else this.interrupts.quiet.disarm();
  }

  /** The native turn of an attempt: known already, recorded before a restart, or named by Codex shortly. */
  private async nativeTurn(attemptId: string): Promise<string> {
    const id = this.options.host.nativeTurnRef(attemptId) ?? (await this.current().whenTurnBound(attemptId, 30_000));
    if (!id) throw new BatonError('provider_error', `no Codex turn is known for attempt ${attemptId}`);
    return id;
  }

  private async respond(
    requestId: RuntimeRequestId,
    decision: ApprovalDecision | null,
    answers: Record<string, string | string[]> | null,
  ): Promise<void> {
    const pending = this.normalizer?.requests.get(requestId);
    const session = this.session;
    if (!pending || !session || session.rpc.isClosed)
      throw new BatonError('not_resumable', `the Codex callback for request ${requestId} is gone`);
    this.normalizer?.requests.delete(requestId);
    await session.reply(pending.rpcId, codexReply(pending, decision, answers));
    this.turnActivity();
  }

  /**
   * Rolls the native thread back to the end of run `runOrdinal` (resumed first if need be) and
   * reports what Codex kept, checked against the turns Baton keeps, as `thread.reverted`. One
   * that cannot be resumed or reverted is reported failed: its replacement is seeded instead.
   */
  private async revert(runOrdinal: number, providerThreadId: ProviderThreadId): Promise<void> {
    const host = this.options.host;
    const { session, normalizer } = await this.ensureSession();
    if (!this.nativeThreadId && !host.nativeThreadRef(providerThreadId))
      throw new BatonError('provider_error', 'no Codex thread to revert');
    if (!(await this.ensureThread(session, providerThreadId, null, null))) return;
    const attemptId = host.attemptOfRun(this.threadId, runOrdinal + 1);
    const beforeTurnId = attemptId ? (normalizer.nativeTurnOf(attemptId) ?? host.nativeTurnRef(attemptId)) : null;
    if (!beforeTurnId) throw new BatonError('provider_error', `no Codex turn recorded for run ${runOrdinal + 1}`);
    const reverted = await revertNativeThread(
      { session, host, threadId: this.threadId },
      this.nativeThreadId!,
      beforeTurnId,
      runOrdinal,
      providerThreadId,
    );
    // Codex keeps a conversation Baton rolled back: it is replaced (the next run reseeds).
    if (!reverted) this.nativeThreadId = null;
  }

  /** The running session and its normalizer, started (and the native thread forgotten) if there is none. */
  private async ensureSession(): Promise<{ session: CodexSession; normalizer: CodexNormalizer }> {
    if (this.session && !this.session.rpc.isClosed && this.normalizer)
      return { session: this.session, normalizer: this.normalizer };
    const host = this.options.host;
    const sessionId = host.ids.next('providerSession');
    this.nativeThreadId = null;
    this.unreadable += this.session?.rpc.problemCount ?? 0;
    this.unknownBefore += this.normalizer?.unknown ?? 0;
    const normalizer = createCodexNormalizer({
      threadId: this.threadId,
      sessionId,
      ids: host.ids,
      subagentThreadOf: (nativeThreadRef) => host.subagentThreadOf(this.threadId, nativeThreadRef),
    });
    this.normalizer = normalizer;
    const session = await startCodexSession(
      {
        threadId: this.threadId,
        host,
        endpoint: this.options.endpoint,
        dataDir: this.options.dataDir,
        ...(this.options.channelFor ? { channelFor: this.options.channelFor } : {}),
        ...(this.options.requestTimeoutMs !== undefined ? { requestTimeoutMs: this.options.requestTimeoutMs } : {}),
        starting: this.starting,
        detached: () => this.detached,
      },
      sessionId,
    );
    session.rpc.onNotification((method, params) => {
      this.forward(normalizer.notification(method, params));
      this.turnActivity();
    });
    session.rpc.onRequest((id, method, params) => {
      const events = normalizer.serverRequest(id, method, params);
      if (events.length === 0) void session.rpc.respondError(id, -32601, `Baton does not handle ${method}`);
      this.forward(events);
      this.turnActivity();
    });
    session.rpc.onProblem((problem) => this.forward([unreadableFrameWarning(this.threadId, 'Codex', problem)]));
    this.watchExit(session, sessionId, normalizer);
    this.session = session;
    await host.emit({
      type: 'session.status',
      threadId: this.threadId,
      sessionId,
      provider: 'codex',
      status: 'ready',
      reason: null,
    });
    return { session, normalizer };
  }

  /**
   * The native thread for this app thread: resumed from its stored ref; or, for a fork's
   * first run, forked natively from the source thread at the source turn; or started new.
   * A resume Codex refuses (its rollout is gone or unreadable) is reported `thread.failed`
   * and answers false: the provider thread is replaced, and the replacement reseeded.
   */
  private async ensureThread(
    session: CodexSession,
    providerThreadId: ProviderThreadId | null,
    model: string | null,
    fork: ForkOrigin | null,
  ): Promise<boolean> {
    if (this.nativeThreadId && this.loadedFor === providerThreadId) return true;
    const scope = { session, host: this.options.host, threadId: this.threadId };
    const native = await openNativeThread(scope, providerThreadId, model, fork);
    if (!native) return false;
    this.nativeThreadId = native;
    this.loadedFor = providerThreadId;
    this.current().nativeThreadId = native;
    return true;
  }

  /** The process going away is the runtime lost: the active run ends by policy, callbacks die. */
  private watchExit(session: CodexSession, sessionId: ProviderSessionId, normalizer: CodexNormalizer): void {
    session.rpc.onClose((reason) => {
      // Its subagents die with it: no end of theirs will come.
      this.forward(normalizer.subagents.closeAll());
      if (this.session !== session) {
        // Released on purpose (see stop) or already replaced: its end concerns no turn of now.
        this.forward([
          { type: 'session.status', threadId: this.threadId, sessionId, provider: 'codex', status: 'stopped', reason },
        ]);
        return;
      }
      this.session = null;
      const killed = this.interrupts.lost(session);
      const t = this.threadId;
      const event: ProviderEvent = this.active
        ? {
            type: 'runtime.lost',
            threadId: t,
            sessionId,
            runStatus: killed?.runStatus ?? 'failed',
            error: killed?.error ?? { code: 'provider_error', message: `the Codex process ${reason}` },
          }
        : { type: 'session.status', threadId: t, sessionId, provider: 'codex', status: 'stopped', reason };
      this.active = null;
      this.normalizer?.requests.clear();
      this.forward([event]);
    });
  }

  /** Forwards events in order; a turn's end clears the active attempt. */
  private forward(events: ProviderEvent[]): void {
    if (this.detached) return;
    for (const given of events) {
      const event = this.interrupts.seen(given);
      if (event.type === 'turn.completed' && this.active?.attemptId === event.attemptId) {
        this.active = null;
        this.interrupts.disarm();
      }
      // emit() reports refusals itself; a throw here would only be a closed store at shutdown.
      void this.options.host.emit(event).catch(() => undefined);
    }
  }

  /**
   * Releases the session on purpose (the idle reaper, a stop by policy, shutdown). It is
   * forgotten at once, before its process has gone: an effect that comes meanwhile starts
   * a new session and resumes the thread instead of writing to the dying one. Resolves once
   * its process is gone (SIGKILLed should it outlast the grace period).
   */
  stop(signal?: NodeJS.Signals): Promise<void> {
    const starting = this.starting.stop();
    const session = this.session;
    if (!session) return starting;
    this.session = null;
    this.active = null;
    this.interrupts.disarm();
    return Promise.all([starting, session.stop(signal)]).then(() => undefined);
  }

  /** Shutdown: stop the process and report nothing more (the store may be closing); resolves once it is gone. */
  detach(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.detached = true;
    this.interrupts.disarm();
    return this.stop(signal);
  }
}
