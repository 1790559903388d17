import type { EffectHandler } from '../../src/actors/effect-handler.js';
import type { ProviderEffectKind } from '../../src/domain/effects.js';
import { codexProvider } from '../../src/providers/codex/codex-provider.js';
import { ProviderRegistry } from '../../src/providers/registry.js';

/**
 * A registry with Codex's real declaration and only the handlers a test gives it (none by
 * default: its effects wait in the outbox for the test to play the provider's part).
 */
export function codexRegistry(handlers: Partial<Record<ProviderEffectKind, EffectHandler>> = {}): ProviderRegistry {
  return new ProviderRegistry([codexProvider(handlers)]);
}
