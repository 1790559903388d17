import type { Runtime } from '../../actors/runtime.js';
import type { EffectHandler } from '../../actors/effect-worker.js';
import { cancelStaleEffect, reportEffectOutcome, staleEffectReason } from '../../actors/live-work-effects.js';
import type { EffectKind } from '../../domain/effects.js';
import { BatonError, toErrorInfo } from '../../domain/errors.js';
import type { ProviderThreadContext } from '../../machines/provider-thread.machine.js';
import type { LineChannel } from '../transport/line-channel.js';
import { reseedFor, seededText } from '../../context/reseed.js';
import { declaredCapabilities } from '../declared-capabilities.js';
import { CodexThreadAdapter, type CodexHost } from './codex-adapter.js';
import type { CodexModelEndpoint } from './codex-home.js';

export interface CodexProviderOptions {
  endpoint: CodexModelEndpoint;
  dataDir: string;
  /** Per session: a replayed transcript, or a recording wrapped around the real binary. */
  channelFor?: (threadId: string, sessionId: string, spawn: () => LineChannel) => LineChannel;
  /** How long Codex has to answer an interrupt (and then end the turn) before it is killed; 10 s by default. */
  interruptTimeoutMs?: number;
  /** A turn Codex says nothing about for this long is timed out; 5 min by default. */
  turnIdleTimeoutMs?: number;
}

const providerEffects: EffectKind[] = [
  'provider.turn.start',
  'provider.turn.steer',
  'provider.turn.interrupt',
  'provider.runtime-request.respond',
  'provider.thread.rollback',
  'provider.session.stop',
];

/**
 * Codex as a provider of the runtime: one adapter per app thread (started on demand),
 * the outbox effects it carries out, and the reaper that releases idle sessions through
 * the same path as a crash (the next effect starts a session and resumes the thread).
 */
export class CodexProvider {
  private readonly adapters = new Map<string, CodexThreadAdapter>();
  private readonly host: CodexHost;

  constructor(
    private readonly runtime: Runtime,
    private readonly options: CodexProviderOptions,
  ) {
    const store = runtime.store;
    this.host = {
      ids: runtime.ids,
      emit: async (event) => {
        const outcome = await runtime.ingest(event);
        if (!outcome.ok && outcome.error.code !== 'not_found') runtime.logger.warn({ event: event.type, error: outcome.error }, 'a Codex event was refused');
        return outcome;
      },
      nativeThreadRef: (providerThreadId) => (store.entities.get(providerThreadId)?.snapshot as { context?: ProviderThreadContext } | undefined)?.context?.nativeThreadRef ?? null,
      nativeTurnRef: (attemptId) => store.bindings.forApp(attemptId).find((b) => b.entityKind === 'run_attempt')?.nativeRef ?? null,
      attemptOfRun: (threadId, ordinal) => {
        const runs = store.projections.list('runs', threadId).filter((r) => r.ordinal === ordinal);
        // The first attempt that reached Codex (one whose thread could not be resumed never did).
        const attempts = runs.at(-1)?.attempts ?? [];
        return (attempts.find((a) => store.bindings.forApp(a.id).some((b) => b.entityKind === 'run_attempt')) ?? attempts[0])?.id ?? null;
      },
      keptTurnRefs: (threadId, ordinal, providerThreadId) =>
        store.projections
          .list('runs', threadId)
          .filter((r) => r.ordinal !== null && r.ordinal <= ordinal && r.status !== 'rolled_back')
          .flatMap((r) => r.attempts.filter((a) => a.providerThreadId === providerThreadId))
          .flatMap((a) => store.bindings.forApp(a.id).filter((b) => b.entityKind === 'run_attempt').map((b) => b.nativeRef)),
      threadCwd: (threadId) => store.projections.get('threads', threadId)?.workspace.cwd ?? process.cwd(),
    };
  }

  adapter(threadId: string): CodexThreadAdapter {
    let adapter = this.adapters.get(threadId);
    if (!adapter) {
      const channelFor = this.options.channelFor;
      adapter = new CodexThreadAdapter(threadId, {
        host: this.host,
        endpoint: this.options.endpoint,
        dataDir: this.options.dataDir,
        ...(this.options.interruptTimeoutMs !== undefined ? { interruptTimeoutMs: this.options.interruptTimeoutMs } : {}),
        ...(this.options.turnIdleTimeoutMs !== undefined ? { turnIdleTimeoutMs: this.options.turnIdleTimeoutMs } : {}),
        ...(channelFor ? { channelFor: (sessionId: string, spawn: () => LineChannel) => channelFor(threadId, sessionId, spawn) } : {}),
      });
      this.adapters.set(threadId, adapter);
    }
    return adapter;
  }

  /** The effect handlers, for the EffectWorker. */
  handlers(): Partial<Record<EffectKind, EffectHandler>> {
    const handler: EffectHandler = async (effect, worker) => {
      // Nothing reaches Codex for a run that is no longer live (it ended while this waited).
      const stale = staleEffectReason(this.runtime.store, effect);
      if (stale) return void (await cancelStaleEffect(worker, effect, stale));
      try {
        // Only Codex's own work: a thread on another provider is not Codex's to run.
        if (effect.provider && effect.provider !== 'codex') throw new BatonError('unsupported', `no ${effect.provider} provider is available in this Baton yet`);
        // A provider_recovery attempt's provider thread lacks the history: Baton's own account goes first.
        const seed = await reseedFor(this.runtime, effect, declaredCapabilities.codex.context.maxRecommendedHandoffChars);
        const payload = effect.payload as { text?: unknown };
        await this.adapter(effect.threadId).carryOut(seed ? { ...effect, payload: { ...payload, text: seededText(seed, String(payload.text ?? '')) } } : effect);
        await worker.settle(effect, 'completed', (t) => reportEffectOutcome(t, effect, null));
      } catch (error) {
        const info = toErrorInfo(error);
        const settled = await worker.settle(effect, 'failed', (t) => reportEffectOutcome(t, effect, info.message), info.message);
        // Lease lost: the effect was cancelled under us (its run ended); there is nothing to report.
        if (!settled.ok && settled.error.code === 'lease_lost') return;
        // A turn that could not start ends its attempt failed, with the provider's error visible.
        if (effect.kind === 'provider.turn.start' && effect.runId) {
          const p = effect.payload as { attemptId: string; rootNodeId: string };
          await this.host.emit({ type: 'turn.completed', threadId: effect.threadId, runId: effect.runId, attemptId: p.attemptId as never, nodeId: p.rootNodeId as never, status: 'failed', error: info });
        }
      }
    };
    return Object.fromEntries(providerEffects.map((k) => [k, handler]));
  }

  /** Releases sessions of threads with no active run. Returns how many were stopped. */
  reapIdle(): number {
    let n = 0;
    for (const [threadId, adapter] of this.adapters) {
      const active = this.runtime.store.projections.get('threads', threadId)?.activeRunId;
      if (!active && adapter.running) {
        adapter.stop();
        n += 1;
      }
    }
    return n;
  }

  /** Shutdown: stops every Codex process and reports nothing more. */
  stopAll(signal: NodeJS.Signals = 'SIGTERM'): void {
    for (const adapter of this.adapters.values()) adapter.detach(signal);
  }
}
