import { describeScenarios } from '../support/scenario-kit/suite.js';
import { useScriptedModel } from '../support/model.js';
import { codexLiveChannel } from './codex-scenario-channels.js';
import { codexScenarioProvider } from './codex-scenarios.js';

/**
 * Every shared scenario Codex declares it can run, live: the real `codex app-server` and the
 * scripted model. The replay test runs the same scenarios from transcripts recorded the same way.
 */
const model = useScriptedModel();

describeScenarios('Codex scenarios, live', codexScenarioProvider, codexLiveChannel(model), { timeoutMs: 60_000 });
