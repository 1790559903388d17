import type { ModelStep } from './model-steps.js';
import type { ScenarioContext } from './scenario.js';

/**
 * Scenarios that use several providers in one Baton (a thread that moves from one to
 * another, a fork onto another provider, a merge-back across them). Each provider plays its
 * own model script; the scenario checks Baton's store, so it holds live and replayed, and,
 * live, what each provider's model was asked where a check needs it.
 */

/** The providers a cross scenario can use: Codex, Claude, and the built-in ACP agents (one per scenario). */
export const crossProviders = ['codex', 'claude', 'codex-acp', 'claude-agent-acp'] as const;
export type CrossProvider = (typeof crossProviders)[number];

/** The fields of a thread (or a switch, or a fork) that put it on a cross provider. */
export const onProvider = (p: CrossProvider): { provider: string; acpAgent?: string } =>
  p === 'codex' || p === 'claude' ? { provider: p } : { provider: 'acp', acpAgent: p };

/** What a provider's scripted model was asked, read back live (in a neutral form). */
export interface ModelSide {
  /** The user texts of request `at` (negative: from the end), one per message or input item. */
  userTexts(at: number): string[];
  /** Request `at`'s prompt cache key, on an API that has one (the Responses API: Codex's thread id). */
  cacheKey(at: number): string | undefined;
}

/** `cwd` is a folder of the run's own: a sibling named after it (`${cwd}-fork`, a fork's workspace) goes with it. */
export interface CrossContext extends ScenarioContext {
  /** Live: what `provider`'s model was asked. Replay: null (there is no model). */
  model(provider: CrossProvider): ModelSide | null;
}

export interface CrossScenario {
  name: string;
  /** Each provider's scripted model, one step per request it gets; the providers it names are those in the Baton. */
  models: Partial<Record<CrossProvider, readonly ModelStep[]>>;
  drive(ctx: CrossContext): Promise<void>;
}

/** The providers a scenario uses, in a fixed order (the first one is the Baton's default). */
export const providersOf = (scenario: Pick<CrossScenario, 'models'>): CrossProvider[] =>
  crossProviders.filter((p) => scenario.models[p] !== undefined);
