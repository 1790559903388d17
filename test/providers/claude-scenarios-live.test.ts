import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ScriptedMessagesServer } from '../../src/providers/model/scripted-messages-server.js';
import { describeScenarios } from '../support/scenario-kit/suite.js';
import { claudeLiveChannel } from './claude-scenario-channels.js';
import { claudeScenarioProvider } from './claude-scenarios.js';
import { claudeAgents } from '../support/live-claude.js';

/**
 * Every shared scenario Claude declares it can run, live: the real Claude agent (the SDK's
 * native binary) through Baton's Claude provider, against the scripted Messages-API model.
 * The others are listed as not applicable, by the capability that rules them out.
 */
const model = new ScriptedMessagesServer();
const channel = claudeLiveChannel(model);

beforeAll(async () => {
  await model.start();
});
afterEach(async () => {
  await channel.gone();
  expect(claudeAgents()).toEqual([]);
  // Only the agent's turns were asked for: nothing on the side.
  expect(model.requests.filter((r) => `${r.method} ${r.path}?${r.query}` !== 'POST /v1/messages?beta=true')).toEqual(
    [],
  );
  model.reset();
});
afterAll(() => model.stop());

describeScenarios('Claude scenarios, live', claudeScenarioProvider, channel, { timeoutMs: 60_000 });
