import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ScriptedMessagesServer } from '../../src/providers/model/scripted-messages-server.js';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import { acpAgentProcesses } from '../support/live-acp.js';
import { describeScenarios } from '../support/scenario-kit/suite.js';
import { acpLiveChannel, acpScenarioProvider } from './acp-scenario-channels.js';

/**
 * Every shared scenario each built-in ACP agent's computed declaration makes applicable,
 * live: claude-agent-acp against the scripted Messages-API model, codex-acp against the
 * scripted Responses-API model, both through Baton's ACP provider. The others are listed as
 * not applicable, by the capability that rules them out.
 */
const messages = new ScriptedMessagesServer();
const responses = new ScriptedModelServer();
const claude = acpLiveChannel({ agent: 'claude-agent-acp', server: messages });
const codex = acpLiveChannel({ agent: 'codex-acp', server: responses });

beforeAll(async () => {
  await Promise.all([messages.start(), responses.start()]);
});
afterEach(async () => {
  await Promise.all([claude.gone(), codex.gone()]);
  // No agent, nor any process of theirs, is left.
  expect(acpAgentProcesses()).toEqual([]);
  messages.reset();
  responses.reset();
});
afterAll(async () => {
  await Promise.all([messages.stop(), responses.stop()]);
});

describeScenarios('ACP scenarios on claude-agent-acp, live', acpScenarioProvider('claude-agent-acp'), claude, {
  timeoutMs: 60_000,
});
describeScenarios('ACP scenarios on codex-acp, live', acpScenarioProvider('codex-acp'), codex, { timeoutMs: 60_000 });
