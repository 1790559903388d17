import type { ScenarioProvider } from './channels.js';
import { missingCapabilities, nativeInstead, type ProviderScenario } from './scenario.js';
import { forkScenarios } from './scenarios/forks.js';
import { itemScenarios } from './scenarios/items.js';
import { requestScenarios } from './scenarios/requests.js';
import { subagentScenarios } from './scenarios/subagents.js';
import { threadScenarios } from './scenarios/threads.js';
import { turnScenarios } from './scenarios/turns.js';

/**
 * The one scenario list every provider runs: live against its real agent and the scripted
 * model (which is how its transcripts are recorded), and replayed from those transcripts.
 * A provider runs each scenario whose needed capabilities it declares true.
 */
export const providerScenarios: readonly ProviderScenario[] = [
  ...turnScenarios,
  ...requestScenarios,
  ...itemScenarios,
  ...threadScenarios,
  ...forkScenarios,
  ...subagentScenarios,
];

/**
 * Why a provider does not run a scenario: each needed capability it declares false, each
 * fallback's flag it declares true (the native path runs instead), each model step its
 * scripted model cannot play. Empty: it runs the scenario.
 */
export function whyNotApplicable(scenario: ProviderScenario, provider: ScenarioProvider): string[] {
  return [
    ...missingCapabilities(scenario, provider.capabilities).map((f) => `capability ${f} is false`),
    ...nativeInstead(scenario, provider.capabilities).map(
      (f) => `capability ${f} is true (the native path runs instead)`,
    ),
    ...scenario.model.flatMap((step) => provider.cannotPlay?.(step) ?? []),
  ];
}

/** The scenarios a provider runs: those it has no reason not to (`whyNotApplicable`). */
export const applicableScenarios = (
  provider: ScenarioProvider,
  scenarios: readonly ProviderScenario[] = providerScenarios,
): ProviderScenario[] => scenarios.filter((s) => whyNotApplicable(s, provider).length === 0);
