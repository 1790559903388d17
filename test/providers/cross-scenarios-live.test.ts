import { afterAll, beforeAll, expect } from 'vitest';
import { ScriptedMessagesServer } from '../../src/providers/model/scripted-messages-server.js';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import { crossAgents, crossLiveChannel } from '../support/scenario-kit/cross-providers.js';
import { describeCrossScenarios } from '../support/scenario-kit/cross-suite.js';
import { crossScenarios } from '../support/scenario-kit/scenarios/cross.js';

/**
 * The cross-provider scenarios, live: Codex, Claude and the ACP agents in one Baton, each the
 * real agent against its own scripted model (Codex and codex-acp the Responses API, Claude
 * and claude-agent-acp the Messages API). The replay test runs the same scenarios from transcripts recorded this way.
 */
const codex = new ScriptedModelServer();
const claude = new ScriptedMessagesServer();
const codexAcp = new ScriptedModelServer();
const claudeAcp = new ScriptedMessagesServer();
const servers = [codex, claude, codexAcp, claudeAcp];

beforeAll(async () => {
  await Promise.all(servers.map((s) => s.start()));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

describeCrossScenarios(
  'cross-provider scenarios, live',
  crossLiveChannel({ codex, claude, 'codex-acp': codexAcp, 'claude-agent-acp': claudeAcp }),
  crossScenarios,
  {
    timeoutMs: 90_000,
    afterGone: () => {
      const left = crossAgents();
      // Only the agents' turns were asked of the Messages-API models: nothing on the side.
      const side = [claude, claudeAcp].flatMap((m) =>
        m.requests.filter((r) => `${r.method} ${r.path}?${r.query}` !== 'POST /v1/messages?beta=true'),
      );
      servers.forEach((s) => s.reset());
      expect(left).toEqual([]);
      expect(side).toEqual([]);
    },
  },
);
