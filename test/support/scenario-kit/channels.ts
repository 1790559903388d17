import type { ProviderCapabilities } from '../../../src/domain/capabilities.js';
import type { Provider } from '../../../src/providers/provider.js';
import type { HarnessOptions } from '../runtime.js';
import type { ModelStep } from './model-steps.js';
import type { ProviderScenario } from './scenario.js';

/**
 * A provider as the scenario kit sees it: its registered id and capability declaration
 * (which decides the scenarios it runs). Its channels say how it is run.
 */
export type ScenarioProvider = Pick<Provider, 'id' | 'capabilities'> & {
  /** Why the provider's scripted model cannot play a model step (null: it can); a scenario with such a step does not apply. */
  cannotPlay?: (step: ModelStep) => string | null;
};

/**
 * A way of running a scenario against a provider:
 * - `live`: the real agent against the scripted model (the provider translates the
 *   scenario's model steps into its scripted model's script);
 * - `record`: live, and what the agent said and was told is written as transcripts;
 * - `replay`: the recorded transcripts stand in for the agent process.
 */
export interface ScenarioChannel {
  kind: 'live' | 'record' | 'replay';
  /** Prepares one run of a scenario in its own folders. */
  open(scenario: ProviderScenario, place: RunPlace): ChannelSession;
}

/** The folders of one scenario run. */
export interface RunPlace {
  /** The workspace the scenario's threads use. */
  cwd: string;
  /** Where the run's SQLite file and the agent's data live. */
  dir: string;
  checkpointsRoot: string;
}

/** One scenario run on a channel: how the provider is wired into Baton, and the hooks `drive` uses. */
export interface ChannelSession {
  /** The provider plugged into the harness: its effect handlers, and capabilities when the scenario adjusts them. */
  harness: HarnessOptions;
  /** Against the real agent (live or recording) rather than a replay. */
  live: boolean;
  /** What the provider declares in this run (adjusted, if the scenario adjusts it). */
  capabilities: ProviderCapabilities;
  /** Fields every thread the scenario creates gets, under its own (an ACP thread names its agent: `acpAgent`). */
  threadDefaults?: Record<string, unknown>;
  modelAsked(n: number): Promise<void>;
  kill(threadId: string): void;
  /** Stops every agent process the run started (before a restart, and at the end). */
  stop(): void;
  /** After the scenario passed: what the channel checks or keeps (a replay consumed every frame; a recording is written). */
  finish?(): void;
  /** Where the channel stood when the scenario failed, to add to the failure. */
  describe?(): string;
}
