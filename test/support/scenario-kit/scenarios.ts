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

/** The scenarios a provider runs: those whose needed capabilities it declares true. */
export const applicableScenarios = (
  provider: ScenarioProvider,
  scenarios: readonly ProviderScenario[] = providerScenarios,
): ProviderScenario[] =>
  scenarios.filter(
    (s) =>
      missingCapabilities(s, provider.capabilities).length === 0 &&
      nativeInstead(s, provider.capabilities).length === 0,
  );
