import { join } from 'node:path';
import { BatonError } from '../../domain/errors.js';
import type { Effect } from '../../domain/effects.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { IdSource } from '../../domain/sources.js';
import { FrameLog } from '../transport/diagnostics.js';
import type { LineChannel } from '../transport/line-channel.js';
import { writeCodexHome, type CodexModelEndpoint } from './codex-home.js';
import { CodexNormalizer, type TurnRef } from './codex-normalizer.js';
import { CodexSession, spawnCodex } from './codex-session.js';
import type { ForkOrigin } from '../../domain/entities.js';

/** What an adapter needs from the rest of Baton, kept narrow so replays can drive it too. */
export interface CodexHost {
  ids: IdSource;
  /** Hands a normalized event to the runtime (in order, per thread). */
  emit(event: ProviderEvent): Promise<unknown>;
  /** The native ref a provider thread was bound to, if any (for thread/resume). */
  nativeThreadRef(providerThreadId: string): string | null;
  /** The native turn id recorded for an attempt, if any (for thread/revert). */
  nativeTurnRef(attemptId: string): string | null;
  /** The first attempt of the run with this ordinal on the thread (for thread/revert). */
  attemptOfRun(threadId: string, runOrdinal: number): string | null;
  threadCwd(threadId: string): string;
  /** `plan` threads run Codex in its plan collaboration mode (where it may ask questions). */
  threadInteractionMode(threadId: string): 'default' | 'plan';
}

export interface CodexAdapterOptions {
  host: CodexHost;
  endpoint: CodexModelEndpoint;
  /** Per-thread CODEX_HOME folders and frame logs live here. */
  dataDir: string;
  /** A channel per session instead of the real binary: a replay, or a recording of the binary. */
  channelFor?: (sessionId: string, spawn: () => LineChannel) => LineChannel;
}

/**
 * Codex for one app thread: one `codex app-server` session, lazily started, and the
 * native thread it drives. It carries out the provider effects of the outbox and turns
 * what Codex says into provider events. Losing the process is reported as `runtime.lost`;
 * the next effect starts a new session and resumes the native thread.
 */
export class CodexThreadAdapter {
  private session: CodexSession | null = null;
  private sessionId: string | null = null;
  private nativeThreadId: string | null = null;
  private normalizer: CodexNormalizer;
  private active: TurnRef | null = null;
  /** Set when Baton shuts down: nothing more is reported. */
  private detached = false;
  /** Problem counts of sessions that are gone. */
  private unreadable = 0;
  private unknownBefore = 0;

  constructor(
    readonly threadId: string,
    private readonly options: CodexAdapterOptions,
  ) {
    this.normalizer = this.newNormalizer();
  }

  private newNormalizer(): CodexNormalizer {
    return new CodexNormalizer(this.threadId, this.options.host.ids, () => this.sessionId ?? 'psess_none');
  }

  /** Frames Codex sent that Baton could not use: unreadable ones and unknown methods. */
  get frameProblems(): { unreadable: number; unknown: number } {
    return { unreadable: this.unreadable + (this.session?.rpc.problemCount ?? 0), unknown: this.unknownBefore + this.normalizer.unknown };
  }

  get running(): boolean {
    return this.session !== null && !this.session.rpc.isClosed;
  }

  get pid(): number | null {
    return this.session?.pid ?? null;
  }

  /** Carries out one outbox effect. Throws a typed error when it cannot. */
  async carryOut(effect: Effect): Promise<void> {
    const p = effect.payload as Record<string, unknown>;
    switch (effect.kind) {
      case 'provider.turn.start':
        return this.startTurn(
          { runId: effect.runId!, attemptId: String(p.attemptId), rootNodeId: String(p.rootNodeId) },
          String(p.text ?? ''),
          String(p.providerThreadId ?? ''),
          (p.model as string | null) ?? null,
          (p.fork as ForkOrigin | null | undefined) ?? null,
        );
      case 'provider.turn.steer': {
        const session = CodexSession.assertReady(this.session);
        const turnId = await this.nativeTurn(String(p.attemptId));
        await session.turnSteer(this.nativeThreadId!, turnId, String(p.text ?? ''));
        return;
      }
      case 'provider.turn.interrupt': {
        const session = CodexSession.assertReady(this.session);
        const turnId = await this.nativeTurn(String(p.attemptId));
        // The answer is an acknowledgement, reported in Codex's order: `turn/completed
        // interrupted`, which follows it, ends the turn.
        await session.turnInterrupt(this.nativeThreadId!, turnId, () => {
          if (effect.runId) this.forward([{ type: 'interrupt.acknowledged', threadId: this.threadId as never, runId: effect.runId as never }]);
        });
        return;
      }
      case 'provider.runtime-request.respond':
        return this.respond(String(p.requestId), p.decision as string | null, p.answers as Record<string, string | string[]> | null);
      case 'provider.thread.rollback':
        return this.revert(Number(p.runOrdinal));
      case 'provider.session.stop':
        this.stop();
        return;
      default:
        throw new BatonError('unsupported', `the Codex adapter does not carry out ${effect.kind}`);
    }
  }

  private async startTurn(ref: TurnRef, text: string, providerThreadId: string, model: string | null, fork: ForkOrigin | null): Promise<void> {
    const session = await this.ensureSession();
    await this.ensureThread(session, providerThreadId, model, fork);
    this.active = ref;
    this.normalizer.pendingStart = ref;
    const plan = this.options.host.threadInteractionMode(this.threadId) === 'plan';
    await session.turnStart(this.nativeThreadId!, text, {
      onTurnId: (id) => this.normalizer.bindTurn(id, ref),
      ...(plan ? { collaborationMode: { mode: 'plan', settings: { model: model ?? this.options.endpoint.model, reasoning_effort: null, developer_instructions: null } } } : {}),
    });
  }

  /** The native turn of an attempt, waiting briefly for turn/start to answer if it has not yet. */
  /** The native turn of an attempt: known already, recorded before a restart, or named by Codex shortly. */
  private async nativeTurn(attemptId: string): Promise<string> {
    const id = this.options.host.nativeTurnRef(attemptId) ?? (await this.normalizer.whenTurnBound(attemptId, 30_000));
    if (!id) throw new BatonError('provider_error', `no Codex turn is known for attempt ${attemptId}`);
    return id;
  }

  private async respond(requestId: string, decision: string | null, answers: Record<string, string | string[]> | null): Promise<void> {
    const pending = this.normalizer.requests.get(requestId);
    if (!pending || !this.running) throw new BatonError('not_resumable', `the Codex callback for request ${requestId} is gone`);
    this.normalizer.requests.delete(requestId);
    if (answers) await this.session!.respondUserInput(pending.rpcId, answers);
    else await this.session!.respondApproval(pending.rpcId, (decision ?? 'decline') as never);
  }

  private async revert(runOrdinal: number): Promise<void> {
    const session = await this.ensureSession();
    const providerThread = this.nativeThreadId;
    if (!providerThread) throw new BatonError('provider_error', 'no Codex thread to revert');
    const attemptId = this.options.host.attemptOfRun(this.threadId, runOrdinal + 1);
    const beforeTurnId = attemptId ? (this.normalizer.nativeTurnOf(attemptId) ?? this.options.host.nativeTurnRef(attemptId)) : null;
    if (!beforeTurnId) throw new BatonError('provider_error', `no Codex turn recorded for run ${runOrdinal + 1}`);
    await session.threadRevert(providerThread, beforeTurnId);
  }

  private async ensureSession(): Promise<CodexSession> {
    if (this.session && !this.session.rpc.isClosed) return this.session;
    const host = this.options.host;
    const sessionId = host.ids.next('providerSession');
    this.sessionId = sessionId;
    this.nativeThreadId = null;
    this.unreadable += this.session?.rpc.problemCount ?? 0;
    this.unknownBefore += this.normalizer.unknown;
    this.normalizer = this.newNormalizer();
    // One CODEX_HOME for all of Baton's Codex sessions (never the user's ~/.codex): a thread
    // stored by one session can be resumed or forked by another.
    const home = writeCodexHome(join(this.options.dataDir, 'codex', 'home'), this.options.endpoint);
    const log = new FrameLog({ dir: join(this.options.dataDir, 'codex', this.threadId, 'frames'), name: sessionId });
    await host.emit({ type: 'session.status', threadId: this.threadId as never, sessionId: sessionId as never, provider: 'codex', status: 'starting', reason: null });
    const cwd = host.threadCwd(this.threadId);
    const channel = this.options.channelFor?.(sessionId, () => spawnCodex(cwd, home));
    const session = await CodexSession.start({ codexHome: home, cwd, log, ...(channel ? { channel } : {}) });
    session.rpc.onNotification((method, params) => this.forward(this.normalizer.notification(method, params)));
    session.rpc.onRequest((id, method, params) => {
      const events = this.normalizer.serverRequest(id, method, params);
      if (events.length === 0) void session.rpc.respondError(id, -32601, `Baton does not handle ${method}`);
      this.forward(events);
    });
    session.rpc.onProblem((problem) => this.forward([{ type: 'warning', threadId: this.threadId as never, runId: null, message: `unreadable Codex frame (${problem}); it was logged and skipped` }]));
    this.watchExit(session, sessionId);
    this.session = session;
    await host.emit({ type: 'session.status', threadId: this.threadId as never, sessionId: sessionId as never, provider: 'codex', status: 'ready', reason: null });
    return session;
  }

  /**
   * The native thread for this app thread: resumed from its stored ref; or, for a fork's
   * first run, forked natively from the source thread at the source turn; or started new.
   */
  private async ensureThread(session: CodexSession, providerThreadId: string, model: string | null, fork: ForkOrigin | null): Promise<void> {
    if (this.nativeThreadId) return;
    const host = this.options.host;
    const known = providerThreadId ? host.nativeThreadRef(providerThreadId) : null;
    const sourceThread = fork?.sourceProviderThreadId ? host.nativeThreadRef(fork.sourceProviderThreadId) : null;
    const sourceTurn = fork?.sourceAttemptId ? host.nativeTurnRef(fork.sourceAttemptId) : null;
    let native: string;
    let resolution: 'native_fork' | undefined;
    if (known) {
      native = await session.threadResume(known);
    } else if (fork && fork.sourceProvider === 'codex' && sourceThread && sourceTurn) {
      native = await session.threadFork(sourceThread, sourceTurn);
      resolution = 'native_fork';
    } else if (fork) {
      throw new BatonError('unsupported', 'this fork cannot be resolved natively and portable context is not built yet');
    } else {
      native = await session.threadStart(host.threadCwd(this.threadId), model);
    }
    this.nativeThreadId = native;
    this.normalizer.nativeThreadId = native;
    if (providerThreadId && native !== known) {
      await host.emit({ type: 'thread.loaded', threadId: this.threadId as never, providerThreadId: providerThreadId as never, nativeThreadRef: native, resumeCursor: native, ...(resolution ? { resolution } : {}) });
    }
  }

  /** The process going away is the runtime lost: the active run ends by policy, callbacks die. */
  private watchExit(session: CodexSession, sessionId: string): void {
    session.rpc.onClose((reason) => {
      if (this.session === session) this.session = null;
      const t = this.threadId as never;
      const event: ProviderEvent = this.active
        ? { type: 'runtime.lost', threadId: t, sessionId: sessionId as never, runStatus: 'failed', error: { code: 'provider_error', message: `the Codex process ${reason}` } }
        : { type: 'session.status', threadId: t, sessionId: sessionId as never, provider: 'codex', status: 'stopped', reason };
      this.active = null;
      this.normalizer.requests.clear();
      this.forward([event]);
    });
  }

  /** Forwards events in order; a turn's end clears the active attempt. */
  private forward(events: ProviderEvent[]): void {
    if (this.detached) return;
    for (const event of events) {
      if (event.type === 'turn.completed' && this.active?.attemptId === event.attemptId) this.active = null;
      // emit() reports refusals itself; a throw here would only be a closed store at shutdown.
      void this.options.host.emit(event).catch(() => undefined);
    }
  }

  /** Stops the session; the next effect starts a new one and resumes the thread. */
  stop(signal?: NodeJS.Signals): void {
    this.session?.stop(signal);
  }

  /** Shutdown: stop the process and report nothing more (the store may be closing). */
  detach(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.detached = true;
    this.stop(signal);
  }
}
