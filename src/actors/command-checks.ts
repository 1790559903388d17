import type { CommandOf, CommandType } from '../domain/commands.js';
import { BatonError } from '../domain/errors.js';
import type { ProviderKind } from '../domain/statuses.js';
import { threadSettings, type ThreadSetting } from '../domain/thread-settings.js';
import type { Store } from '../persistence/store.js';
import { projectionNames } from '../domain/projections.js';
import type { CapabilitySource } from './policy.js';
import type { EntityContext } from './entity-machines.js';
import type { StepContext } from './step-context.js';
import type { ProviderRegistry } from '../providers/registry.js';

/**
 * What the command handlers check before they touch a machine: the thread exists, a new
 * id is new, the provider and its agent are ones this Baton runs, and every setting given
 * is one the provider carries to its agent. Each refusal is typed and changes nothing.
 */

export interface HandlerEnv {
  capabilities: CapabilitySource;
  defaultProvider: ProviderKind;
  /** The providers this Baton can run: a thread on any other is refused at the command. */
  providers: readonly ProviderKind[];
  /** The thread settings each provider carries to its agent: setting any other is refused. */
  appliedSettings(provider: ProviderKind): readonly ThreadSetting[];
  /** The agents a provider runs (the ACP provider's, by name): a thread's `acpAgent` must be one of them. */
  agents(provider: ProviderKind): readonly string[];
  /** Committed state of other threads (a fork reads its source; it never writes there). */
  store: Store;
}

/** One command's handler: its events go to the thread's actors through `thread`. */
export type Handler<K extends CommandType> = (
  thread: StepContext,
  command: CommandOf<K>,
  env: HandlerEnv,
) => Record<string, unknown>;

export const supervisorOf = (thread: StepContext) => ({ kind: 'thread_supervisor' as const, id: thread.threadId });

export type SupervisorContext = EntityContext<'thread_supervisor'>;

export function supervisorContext(thread: StepContext): SupervisorContext {
  const context = thread.context(supervisorOf(thread));
  if (!context) throw new BatonError('not_found', `no thread ${thread.threadId}`);
  return context;
}

/**
 * A new thread's id (which a client may choose) must be new to the whole store, not only
 * to its own thread: entity rows and read models are keyed by id alone, so a thread named
 * after a run or a provider thread would take over that row.
 */
export function claimNewThreadId(thread: StepContext, store: Store): void {
  const id = thread.threadId;
  const holder = store.entities.get(id)?.kind ?? projectionNames.find((p) => store.projections.get(p, id) !== null);
  if (holder || thread.state(supervisorOf(thread))) {
    throw new BatonError(
      'conflict',
      `id ${id} is already in use${holder ? ` (${holder})` : ''}: a new thread needs an id of its own`,
      { id, heldBy: holder ?? 'thread_supervisor' },
    );
  }
}

export function requireAvailable(provider: ProviderKind, env: HandlerEnv): void {
  if (!env.providers.includes(provider)) {
    throw new BatonError(
      'unsupported',
      `no ${provider} provider is available in this Baton yet (available: ${env.providers.join(', ')})`,
      { provider, available: env.providers },
    );
  }
}

/** A setting the provider does not carry to its agent is refused, not stored and silently ignored. */
export function requireApplied(
  provider: ProviderKind,
  given: Partial<Record<ThreadSetting, unknown>>,
  env: HandlerEnv,
): void {
  const applied = env.appliedSettings(provider);
  const ignored = threadSettings.filter((s) => given[s] !== undefined && given[s] !== null && !applied.includes(s));
  if (ignored.length) {
    throw new BatonError(
      'unsupported',
      `the ${provider} provider does not apply ${ignored.join(', ')} yet in this version of Baton`,
      { provider, settings: ignored },
    );
  }
}

/**
 * `acpAgent` names the ACP agent a thread runs: an ACP thread is created with one, no other
 * thread has one, and it must be an agent the ACP provider runs, so an unknown name is
 * refused here rather than failing the thread's first run.
 */
export function requireAcpAgent(
  provider: ProviderKind,
  acpAgent: string | undefined,
  by: 'create' | 'update',
  env: HandlerEnv,
): void {
  if (provider !== 'acp') {
    if (acpAgent === undefined) return;
    throw new BatonError(
      'invalid_command',
      `acpAgent names the agent of a thread with provider acp; this thread's provider is ${provider}`,
      { provider },
    );
  }
  const known = env.agents('acp');
  if (acpAgent === undefined) {
    if (by === 'update') return;
    throw new BatonError(
      'invalid_command',
      `a thread with provider acp needs acpAgent, the ACP agent it runs (known: ${known.join(', ') || 'none'})`,
      { known },
    );
  }
  if (!known.includes(acpAgent))
    throw new BatonError(
      'invalid_payload',
      `no ACP agent named ${acpAgent} in this Baton (known: ${known.join(', ') || 'none'}; more are registered with BATON_ACP_AGENTS)`,
      { acpAgent, known },
    );
}

/**
 * The handlers' view of the runtime, made once: the providers are read when a handler asks
 * (they register after the runtime is made). Methods, not arrow functions made per command.
 */
export function handlerEnvOf(
  capabilities: CapabilitySource,
  defaultProvider: ProviderKind,
  registry: ProviderRegistry,
  store: Store,
): HandlerEnv {
  return {
    capabilities,
    defaultProvider,
    get providers() {
      return registry.ids();
    },
    appliedSettings(provider) {
      return registry.appliedSettings(provider);
    },
    agents(provider) {
      return registry.agents(provider);
    },
    store,
  };
}
