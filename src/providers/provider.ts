import type { EffectHandler } from '../actors/effect-worker.js';
import type { ProviderCapabilities } from '../domain/capabilities.js';
import type { ProviderEffectKind } from '../domain/effects.js';
import type { ProviderKind } from '../domain/statuses.js';

/**
 * What a provider brings to the runtime: its id, what its adapter really does (each true
 * flag backed by a test of that adapter), and the outbox effects it carries out. The
 * runtime knows providers only through this seam (see `ProviderRegistry`); it never
 * imports a concrete one. Its normalizer stays inside the adapter, which reports through
 * the host port (`ProviderHost.ingest`) in Baton's provider-event vocabulary.
 */
export interface Provider {
  readonly id: ProviderKind;
  readonly capabilities: ProviderCapabilities;
  /** The effect kinds it carries out; an effect of any other kind for it is settled `unsupported`. */
  readonly handlers: Partial<Record<ProviderEffectKind, EffectHandler>>;
}
