import type { ProviderCapabilities } from '../../../src/domain/capabilities.js';
import type { Harness } from '../runtime.js';
import type { ModelStep } from './model-steps.js';

/**
 * A provider scenario: what the scripted model does, which declared capabilities it relies
 * on, and how it drives Baton (commands in, durable projections checked). Written against
 * Baton only, so every provider plugs into the same list through its channels.
 */
export interface ProviderScenario {
  name: string;
  /** The capability flags the scenario exercises: a provider declaring any of them false does not run it. */
  needs: readonly CapabilityFlag[];
  /** A fallback's scenario: a provider declaring any of these true takes the native path instead, not this one. */
  unless?: readonly CapabilityFlag[];
  /** The scripted model's behaviour, one step per model request. */
  model: readonly ModelStep[];
  /** MCP servers configured for the agent (stdio commands, by name). */
  mcpServers?: Record<string, { command: string; args: string[] }>;
  /** Runs Baton with the provider's declared capabilities changed (to exercise a fallback). */
  adjustCapabilities?: (declared: ProviderCapabilities) => ProviderCapabilities;
  drive(ctx: ScenarioContext): Promise<void>;
}

export interface ScenarioContext {
  h: Harness;
  cwd: string;
  /** True against the real agent; false in a replay, where no agent touches the workspace. */
  live: boolean;
  /** Live: waits until the model has been asked `n` times. Replay: there is no model. */
  modelAsked(n: number): Promise<void>;
  /** Kills the thread's agent process (in a replay, the recorded process dies here). */
  kill(threadId: string): void;
  /** Baton stops (its agent processes die with it) and starts again on the same data. */
  restart(): Promise<Harness>;
  /** Whether the provider declares a flag: a scenario checks more of what a provider says it does. */
  declares(flag: CapabilityFlag): boolean;
}

type BooleanKeys<T> = { [K in keyof T]: T[K] extends boolean ? K & string : never }[keyof T];
type Groups = {
  [G in keyof ProviderCapabilities]: ProviderCapabilities[G] extends object ? G : never;
}[keyof ProviderCapabilities];

/** A boolean capability flag by its path, `group.flag` (as DESIGN.md section 4 names them). */
export type CapabilityFlag = { [G in Groups]: `${G}.${BooleanKeys<ProviderCapabilities[G]>}` }[Groups];

/** Whether a declaration sets a flag true. */
export function declares(capabilities: ProviderCapabilities, flag: CapabilityFlag): boolean {
  const [group, name] = flag.split('.');
  const flags: unknown = Object.entries(capabilities).find(([g]) => g === group)?.[1];
  return (
    typeof flags === 'object' && flags !== null && Object.entries(flags).some(([f, v]) => f === name && v === true)
  );
}

/** The flags a scenario needs that a provider declares false: empty when the scenario applies. */
export function missingCapabilities(
  scenario: Pick<ProviderScenario, 'needs'>,
  capabilities: ProviderCapabilities,
): CapabilityFlag[] {
  return scenario.needs.filter((flag) => !declares(capabilities, flag));
}

/** The flags of a fallback's scenario that a provider declares true (it takes the native path): empty when it applies. */
export function nativeInstead(
  scenario: Pick<ProviderScenario, 'unless'>,
  capabilities: ProviderCapabilities,
): CapabilityFlag[] {
  return (scenario.unless ?? []).filter((flag) => declares(capabilities, flag));
}

/** A scenario's check: fails the scenario with a message saying what did not hold. */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`scenario check failed: ${message}`);
}
