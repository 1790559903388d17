import type { EffectHandler } from '../actors/effect-handler.js';
import type { ProviderCapabilities } from '../domain/capabilities.js';
import type { ProviderEffectKind } from '../domain/effects.js';
import { BatonError } from '../domain/errors.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { ThreadSetting } from '../domain/thread-settings.js';
import type { NormalizerScope, Provider, ProviderNormalizer } from './provider.js';

/**
 * The providers this Baton can run, by id. It is the runtime's one source of capabilities,
 * of provider effect handlers and of normalizers: the worker dispatches a provider effect on its
 * (provider, kind), so two providers' handlers for the same kind never replace each other.
 * Providers may register after the runtime is built (an adapter needs the runtime's host
 * port); the registry is read at each use.
 */
export class ProviderRegistry {
  private readonly providers = new Map<ProviderKind, Provider>();

  constructor(providers: readonly Provider[] = []) {
    providers.forEach((p) => this.register(p));
  }

  /** Adds a provider; a second registration of the same id is a typed `conflict`. */
  register(provider: Provider): this {
    if (this.providers.has(provider.id))
      throw new BatonError('conflict', `a ${provider.id} provider is registered already`);
    this.providers.set(provider.id, provider);
    return this;
  }

  get(id: ProviderKind): Provider | null {
    return this.providers.get(id) ?? null;
  }

  /** The registered ids, in registration order. */
  ids(): ProviderKind[] {
    return [...this.providers.keys()];
  }

  /** The thread settings the provider carries to its agent; none for a provider Baton lacks. */
  appliedSettings(id: ProviderKind): readonly ThreadSetting[] {
    return this.providers.get(id)?.appliedSettings ?? [];
  }

  /** The agent names the provider runs (a thread picks one with `acpAgent`); none for a provider Baton lacks or one that runs no agents. */
  agents(id: ProviderKind): readonly string[] {
    return this.providers.get(id)?.agents ?? [];
  }

  /**
   * The declaration for a thread on the provider and, where the thread names one, its agent
   * (the provider's own for that agent when it has one, else its base); a provider Baton
   * lacks is a typed `unsupported`.
   */
  capabilities(id: ProviderKind, agent?: string | null): ProviderCapabilities {
    const provider = this.providers.get(id);
    if (!provider) throw unsupportedProvider(id);
    return agent && provider.capabilitiesFor ? provider.capabilitiesFor(agent) : provider.capabilities;
  }

  /** A new normalizer of the provider's native frames; a provider Baton lacks is a typed `unsupported`. */
  normalizer(id: ProviderKind, scope: NormalizerScope): ProviderNormalizer {
    const provider = this.providers.get(id);
    if (!provider) throw unsupportedProvider(id);
    return provider.createNormalizer(scope);
  }

  /** Who carries out this kind for this provider; null when the provider is missing or does not do it. */
  handler(id: ProviderKind, kind: ProviderEffectKind): EffectHandler | null {
    return this.providers.get(id)?.handlers[kind] ?? null;
  }

  /** Every kind some registered provider carries out (what the worker claims for providers). */
  kinds(): ProviderEffectKind[] {
    const kinds = new Set<ProviderEffectKind>();
    for (const p of this.providers.values())
      for (const k of Object.keys(p.handlers) as ProviderEffectKind[]) kinds.add(k);
    return [...kinds];
  }
}

export const unsupportedProvider = (id: string | null): BatonError =>
  new BatonError('unsupported', `no ${id ?? 'unnamed'} provider is available in this Baton yet`, { provider: id });
