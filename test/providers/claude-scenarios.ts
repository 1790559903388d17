import { claudeCapabilities } from '../../src/providers/claude/claude-capabilities.js';
import type { ScenarioProvider } from '../support/scenario-kit/channels.js';

/** Claude as the scenario kit sees it: its id and its capability declaration. */
export const claudeScenarioProvider: ScenarioProvider = { id: 'claude', capabilities: claudeCapabilities };
