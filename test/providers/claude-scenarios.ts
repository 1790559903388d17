import { claudeCapabilities } from '../../src/providers/claude/claude-capabilities.js';
import type { ScenarioProvider } from '../support/scenario-kit/channels.js';
import { claudeModel, NoClaudeFormError } from './claude-model.js';

/**
 * Claude as the scenario kit sees it: its id, its capability declaration, and the model
 * steps its scripted Messages-API model has no form for (a scenario with one does not apply).
 */
export const claudeScenarioProvider: ScenarioProvider = {
  id: 'claude',
  capabilities: claudeCapabilities,
  cannotPlay: (step) => {
    try {
      claudeModel([step]);
      return null;
    } catch (error) {
      if (error instanceof NoClaudeFormError) return error.message;
      throw error;
    }
  },
};
