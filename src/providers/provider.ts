import type { EffectHandler } from '../actors/effect-handler.js';
import type { ProviderCapabilities } from '../domain/capabilities.js';
import type { ProviderEffectKind } from '../domain/effects.js';
import type { ProviderSessionId, ThreadId } from '../domain/ids.js';
import type { ProviderEvent } from '../domain/provider-events.js';
import type { IdSource } from '../domain/sources.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { ThreadSetting } from '../domain/thread-settings.js';

/** What a normalizer speaks for: one app thread, over one provider session, minting app ids from the runtime's source. */
export interface NormalizerScope {
  readonly threadId: ThreadId;
  readonly sessionId: ProviderSessionId;
  readonly ids: IdSource;
}

/**
 * A provider's native frames -> Baton's provider events, for one scope. It keeps the
 * correlation state of its session (which native turn is which attempt, which item which
 * node), so every event it returns carries app ids; native ids stay evidence.
 */
export interface ProviderNormalizer {
  /** One native frame as decoded from the wire, validated here (the edge); a frame Baton has no use for yields no event. */
  normalize(frame: unknown): ProviderEvent[];
}

/**
 * What a provider brings to the runtime: its id, what its adapter really does (each true
 * flag backed by a test of that adapter), the outbox effects it carries out, and its
 * normalizer. The runtime knows providers only through this seam (see `ProviderRegistry`);
 * it never imports a concrete one. The adapter drives the normalizer this factory makes
 * and reports through the host port (`ProviderHost.ingest`). A provider sees the runtime
 * only through type-only ports: `ProviderRuntime` and `ProviderHost` (actors/provider-host.ts),
 * `EffectWorkerPort` for its handlers (actors/effect-handler.ts).
 */
export interface Provider {
  readonly id: ProviderKind;
  readonly capabilities: ProviderCapabilities;
  /**
   * The thread settings its adapter carries to the agent (each tested). A command that sets
   * one it does not carry is refused `unsupported`, never stored and ignored.
   */
  readonly appliedSettings: readonly ThreadSetting[];
  /**
   * The agents it can run, by the name a thread picks with `acpAgent` (only the ACP provider,
   * which runs any ACP agent, has them). A thread naming another is refused at the command.
   */
  readonly agents?: readonly string[];
  /**
   * The declaration for threads on one of its agents, where an agent's differ from the
   * provider's base (`capabilities`): the ACP provider's, computed from that agent's
   * `initialize`. A provider without it declares the same for every thread.
   */
  capabilitiesFor?(agent: string): ProviderCapabilities;
  /** The effect kinds it carries out; an effect of any other kind for it is settled `unsupported`. */
  readonly handlers: Partial<Record<ProviderEffectKind, EffectHandler>>;
  /** A new normalizer for one app thread's provider session. */
  createNormalizer(scope: NormalizerScope): ProviderNormalizer;
}
