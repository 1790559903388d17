import { expect, it } from 'vitest';
import { useRuntime } from '../support/runtime.js';
import { providerTakesAnswers } from '../support/provider-stand-in.js';
/** A runtime request carries its run's provider, so the answer's outbox row names whose callback it is. */
const open = useRuntime({ handlers: () => ({ 'provider.runtime-request.respond': providerTakesAnswers }) });
it('an approval reply names its provider in the outbox', async () => {
  const h = open();
  const threadId = await h.thread();
  const t = await h.running(threadId);
  const runId = t.runId;
  await h.feed({
    type: 'request.opened',
    threadId,
    runId,
    requestId: 'req_1',
    nodeId: 'node_req_1',
    parentNodeId: t.rootNodeId,
    kind: 'command',
    prompt: 'Run ls?',
    details: {},
    providerSessionId: 'psess_1',
  });
  await h.command({ type: 'runtime-request.respond', requestId: 'req_1', decision: 'accept' });
  expect(h.effect('provider.runtime-request.respond', threadId).provider).toBe('codex');
});
