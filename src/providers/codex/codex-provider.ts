import type { ProviderRuntime } from '../../actors/provider-host.js';
import type { ProviderEffectKind } from '../../domain/effects.js';
import type { LineChannel } from '../transport/line-channel.js';
import type { Provider } from '../provider.js';
import { ThreadAdapters } from '../thread-adapters.js';
import { AdapterProvider } from '../adapter-provider.js';
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
  /** How long Codex has to answer each request of Baton's (the handshake included); 30 s by default. */
  requestTimeoutMs?: number;
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
export class CodexProvider extends AdapterProvider<CodexThreadAdapter> {
  protected readonly adapters: ThreadAdapters<CodexThreadAdapter>;
  protected readonly effects = providerEffects;

  constructor(runtime: ProviderRuntime, options: CodexProviderOptions) {
    super();
    const port = runtime.providerHost('codex');
    const host: CodexHost = {
      ids: port.ids,
      emit: (event) => port.ingest(event),
      nativeThreadRef: (providerThreadId) => port.nativeThreadRef(providerThreadId),
      subagentThreadOf: (threadId, nativeThreadRef) => port.subagentThreadOf(threadId, nativeThreadRef),
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
      orchestratorMcp: (threadId) => port.orchestratorMcp?.(threadId) ?? null,
    };
    const channelFor = options.channelFor;
    this.adapters = new ThreadAdapters({
      make: (threadId) =>
        new CodexThreadAdapter(threadId, {
          host,
          endpoint: options.endpoint,
          dataDir: options.dataDir,
          ...(options.interruptTimeoutMs !== undefined ? { interruptTimeoutMs: options.interruptTimeoutMs } : {}),
          ...(options.turnIdleTimeoutMs !== undefined ? { turnIdleTimeoutMs: options.turnIdleTimeoutMs } : {}),
          ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
          ...(channelFor
            ? { channelFor: (sessionId: string, spawn: () => LineChannel) => channelFor(threadId, sessionId, spawn) }
            : {}),
        }),
      activeRunId: (threadId) => port.activeRunId(threadId),
      maxHandoffChars: codexCapabilities.context.maxRecommendedHandoffChars,
    });
  }

  /** Codex as the registry knows it: its id, its adapter's declaration, the effects it carries out and its normalizer. */
  provider(): Provider {
    return codexProvider(this.handlers());
  }
}
