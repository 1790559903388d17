import { describe, expect, it } from 'vitest';
import type { ProviderCapabilities } from '../../../src/domain/capabilities.js';
import { codexCapabilities } from '../../../src/providers/codex/codex-capabilities.js';
import type { ScenarioChannel, ScenarioProvider } from './channels.js';
import { declares, missingCapabilities } from './scenario.js';
import { applicableScenarios, providerScenarios, whyNotApplicable } from './scenarios.js';
import { describeScenarios } from './suite.js';

/** The kit's own rules: which provider runs which scenario is decided by its declaration alone. */
const cannotInterruptOrSteer: ProviderCapabilities = {
  ...codexCapabilities,
  turns: { ...codexCapabilities.turns, supportsInterrupt: false, supportsActiveSteering: false },
};
const limited: ScenarioProvider = { id: 'acp', capabilities: cannotInterruptOrSteer };
const codexScenario: ScenarioProvider = { id: 'codex', capabilities: codexCapabilities };
const named = (...names: string[]) => providerScenarios.filter((s) => names.includes(s.name));

describe('the scenario kit', () => {
  it('scenario names are unique and every scenario names the capabilities it needs', () => {
    expect(new Set(providerScenarios.map((s) => s.name)).size).toBe(providerScenarios.length);
    expect(providerScenarios.filter((s) => s.needs.length === 0).map((s) => s.name)).toEqual([]);
  });

  it('reads flags by path', () => {
    expect(declares(codexCapabilities, 'turns.supportsInterrupt')).toBe(true);
    expect(declares(codexCapabilities, 'turns.supportsQueuedMessages')).toBe(false);
    expect(declares(cannotInterruptOrSteer, 'turns.supportsInterrupt')).toBe(false);
  });

  it('a provider runs exactly the scenarios whose needed flags it declares true', () => {
    const turnInterrupt = named('turn_interrupt')[0]!;
    expect(missingCapabilities(turnInterrupt, cannotInterruptOrSteer)).toEqual(['turns.supportsInterrupt']);
    const left = providerScenarios.filter((s) => !applicableScenarios(limited).includes(s)).map((s) => s.name);
    // The `limited` declaration is Codex's with interrupts and native steering off; its declines carry on
    // (the fallback where a decline ends the turn is not its own).
    expect(left).toEqual(['turn_interrupt', 'message_steering', 'approval_decline_ends_turn']);
  });

  it("a scenario with a model step the provider's scripted model cannot play does not apply, and says why", () => {
    const noSearch: ScenarioProvider = {
      id: 'codex',
      capabilities: codexCapabilities,
      cannotPlay: (step) => (step.kind === 'web_search' ? 'no web search here' : null),
    };
    const webSearch = named('web_search')[0]!;
    expect(whyNotApplicable(webSearch, noSearch)).toEqual(['no web search here']);
    // Codex's own applicable list, less web_search.
    expect(applicableScenarios(noSearch)).toEqual(applicableScenarios(codexScenario).filter((s) => s !== webSearch));
  });
});

// Registers one test per scenario saying why it does not apply; the channel is never opened.
const unopened: ScenarioChannel = {
  kind: 'replay',
  open: (scenario) => {
    throw new Error(`${scenario.name} does not apply and must not run`);
  },
};
describeScenarios('a provider that declares no interrupt and no native steering', limited, unopened, {
  scenarios: named('turn_interrupt', 'message_steering'),
});
