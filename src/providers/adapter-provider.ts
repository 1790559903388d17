import type { ProviderEffectKind } from '../domain/effects.js';
import type { Provider } from './provider.js';
import type { ThreadAdapter, ThreadAdapters } from './thread-adapters.js';

/**
 * A provider carried out by one adapter per app thread (Codex, Claude, ACP): what each
 * offers the app and the tests beyond its registration, served by its adapters.
 */
export abstract class AdapterProvider<A extends ThreadAdapter> {
  protected abstract readonly adapters: ThreadAdapters<A>;
  /** The outbox effects its adapters carry out. */
  protected abstract readonly effects: readonly ProviderEffectKind[];

  /** The provider as the registry knows it: its id, its adapter's declaration, its effect handlers and its normalizer. */
  abstract provider(): Provider;

  /** The adapter of an app thread (a test or the CLI may name it by a plain string: it is parsed there). */
  adapter(threadId: string): A {
    return this.adapters.get(threadId);
  }

  /** The effect handlers, for the EffectWorker. */
  handlers(): Provider['handlers'] {
    return this.adapters.handlers(this.effects);
  }

  /** Releases the agents of threads with no active run (the next effect starts one again). Returns how many were stopped. */
  reapIdle(): number {
    return this.adapters.reapIdle();
  }

  /** Shutdown: stops every agent process and reports nothing more; resolves once they are gone. */
  stopAll(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    return this.adapters.stopAll(signal);
  }
}
