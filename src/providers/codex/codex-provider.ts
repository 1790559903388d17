import type { EffectHandler } from '../../actors/effect-handler.js';
import type { ProviderHost, ProviderRuntime } from '../../actors/provider-host.js';
import type { ProviderEffectKind } from '../../domain/effects.js';
import { ThreadId } from '../../domain/ids.js';
import { toErrorInfo } from '../../domain/errors.js';
import type { LineChannel } from '../transport/line-channel.js';
import { seededText } from '../../context/reseed.js';
import type { Provider } from '../provider.js';
import { codexCapabilities } from './codex-capabilities.js';
import { CodexThreadAdapter, type CodexHost } from './codex-adapter.js';
import { createCodexNormalizer } from './codex-normalizer.js';
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

/** Codex's registration, with these effect handlers (tests register Codex with handlers of their own). */
export const codexProvider = (handlers: Provider['handlers']): Provider => ({
  id: 'codex',
  capabilities: codexCapabilities,
  handlers,
  // Sent on every turn/start (codex-turn-settings.ts; test/providers/codex-settings-live.test.ts).
  appliedSettings: ['model', 'runtimeMode', 'interactionMode'],
  createNormalizer: createCodexNormalizer,
});

const providerEffects: ProviderEffectKind[] = [
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
  private readonly port: ProviderHost;

  constructor(
    runtime: ProviderRuntime,
    private readonly options: CodexProviderOptions,
  ) {
    const port = runtime.providerHost('codex');
    this.port = port;
    this.host = {
      ids: port.ids,
      emit: (event) => port.ingest(event),
      nativeThreadRef: (providerThreadId) => port.nativeThreadRef(providerThreadId),
      nativeTurnRef: (attemptId) => port.nativeTurnRef(attemptId),
      attemptOfRun: (threadId, ordinal) => {
        const runs = port.runs(threadId).filter((r) => r.ordinal === ordinal);
        // The first attempt that reached Codex (one whose thread could not be resumed never did).
        const attempts = runs.at(-1)?.attempts ?? [];
        return (attempts.find((a) => port.nativeTurnRef(a.id) !== null) ?? attempts[0])?.id ?? null;
      },
      keptTurnRefs: (threadId, ordinal, providerThreadId) =>
        port
          .runs(threadId)
          .filter((r) => r.ordinal !== null && r.ordinal <= ordinal && r.status !== 'rolled_back')
          .flatMap((r) => r.attempts.filter((a) => a.providerThreadId === providerThreadId))
          .flatMap((a) => port.nativeTurnRef(a.id) ?? []),
      threadCwd: (threadId) => port.threadCwd(threadId),
    };
  }

  /** Codex as the registry knows it: its id, its adapter's declaration, the effects it carries out and its normalizer. */
  provider(): Provider {
    return codexProvider(this.handlers());
  }

  /** The adapter of an app thread (a test or the CLI may name it by a plain string: it is parsed here). */
  adapter(threadId: string): CodexThreadAdapter {
    let adapter = this.adapters.get(threadId);
    if (!adapter) {
      const channelFor = this.options.channelFor;
      adapter = new CodexThreadAdapter(ThreadId.parse(threadId), {
        host: this.host,
        endpoint: this.options.endpoint,
        dataDir: this.options.dataDir,
        ...(this.options.interruptTimeoutMs !== undefined
          ? { interruptTimeoutMs: this.options.interruptTimeoutMs }
          : {}),
        ...(this.options.turnIdleTimeoutMs !== undefined ? { turnIdleTimeoutMs: this.options.turnIdleTimeoutMs } : {}),
        ...(channelFor
          ? { channelFor: (sessionId: string, spawn: () => LineChannel) => channelFor(threadId, sessionId, spawn) }
          : {}),
      });
      this.adapters.set(threadId, adapter);
    }
    return adapter;
  }

  /** The effect handlers, for the EffectWorker. */
  handlers(): Partial<Record<ProviderEffectKind, EffectHandler>> {
    const handler: EffectHandler = async (effect, worker) => {
      try {
        // A provider_recovery attempt's provider thread lacks the history: Baton's own account goes first.
        const seed = await worker.reseed(effect, codexCapabilities.context.maxRecommendedHandoffChars);
        const payload = effect.payload;
        await this.adapter(effect.threadId).carryOut(
          seed ? { ...effect, payload: { ...payload, text: seededText(seed, String(payload.text ?? '')) } } : effect,
        );
        await worker.complete(effect);
      } catch (error) {
        await worker.fail(effect, toErrorInfo(error));
      }
    };
    return Object.fromEntries(providerEffects.map((k) => [k, handler]));
  }

  /** Releases sessions of threads with no active run. Returns how many were stopped. */
  reapIdle(): number {
    let n = 0;
    for (const [threadId, adapter] of this.adapters) {
      const active = this.port.activeRunId(threadId);
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
