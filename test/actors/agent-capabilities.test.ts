import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dispatchCapabilities } from '../../src/actors/policy.js';
import type { ProviderCapabilities } from '../../src/domain/capabilities.js';
import { acpAgentFeatures, acpBaseCapabilities, acpCapabilities } from '../../src/providers/acp/acp-capabilities.js';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import type { Provider } from '../../src/providers/provider.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { useRuntime, type Harness } from '../support/runtime.js';

/**
 * A provider that runs many agents declares per agent (`capabilitiesFor`), and the runtime's
 * policy reads the declaration of the agent the thread names: dispatch at create and fork,
 * recovery after a restart, `Runtime.threadCapabilities`. The provider here is a scripted
 * ACP defined in this test (its effects wait in the outbox): agent `one` steers by
 * interrupt-and-restart and keeps its asks across a restart, agent `two` can do neither,
 * and the base (what a thread with no agent reads) steers natively, like neither.
 */
const base: ProviderCapabilities = { ...codexCapabilities, version: 'acp-scripted/base' };
const perAgent: Record<string, ProviderCapabilities> = {
  one: {
    ...base,
    version: 'acp-scripted/one',
    turns: {
      ...base.turns,
      supportsActiveSteering: false,
      supportsSteeringByInterruptRestart: true,
      supportsInterrupt: true,
    },
    sessions: { ...base.sessions, pendingRequestsSurviveRestart: true },
  },
  two: {
    ...base,
    version: 'acp-scripted/two',
    turns: {
      ...base.turns,
      supportsActiveSteering: false,
      supportsSteeringByInterruptRestart: false,
      supportsInterrupt: true,
    },
    sessions: { ...base.sessions, pendingRequestsSurviveRestart: false },
  },
};

const scriptedAcp = (withPerAgent = true): Provider => ({
  id: 'acp',
  capabilities: base,
  ...(withPerAgent ? { capabilitiesFor: (agent: string) => perAgent[agent] ?? base } : {}),
  appliedSettings: ['acpAgent'],
  agents: ['one', 'two'],
  handlers: {},
  createNormalizer: () => ({ normalize: () => [] }),
});

const withAgents = useRuntime({ providers: () => [scriptedAcp()] });

type Ack = { ok: boolean; result: Record<string, unknown>; error?: { code: string; message: string } };
const send = (h: Harness, threadId: string, text: string, dispatchMode?: string) =>
  h.command({
    type: 'thread.message.send',
    threadId,
    text,
    ...(dispatchMode ? { dispatchMode } : {}),
  }) as Promise<Ack>;

/** A thread on `agent` with its first run started at the provider. */
async function busyThread(h: Harness, agent: string): Promise<{ threadId: string; runId: string; attemptId: string }> {
  const threadId = await h.thread({ provider: 'acp', acpAgent: agent });
  await send(h, threadId, 'build it');
  const t = h.turn(threadId);
  await h.feed({
    type: 'turn.started',
    threadId,
    runId: t.runId,
    attemptId: t.attemptId,
    nodeId: t.rootNodeId,
    nativeTurnRef: `turn_${t.attemptId}`,
  });
  return { threadId, runId: t.runId, attemptId: t.attemptId };
}

const effectsOf = (h: Harness, threadId: string, kind: string) =>
  h.store.outbox.list({ threadId }).filter((e) => e.kind === kind);

describe("dispatch reads the thread's agent's declaration", () => {
  it('a steer on an agent that steers by restart interrupts the active attempt and restarts it under the same run', async () => {
    const h = withAgents();
    const { threadId, runId, attemptId } = await busyThread(h, 'one');
    expect(await send(h, threadId, 'in Rust instead', 'steer_active')).toMatchObject({
      ok: true,
      result: { runId, dispatched: 'steered' },
    });
    expect(h.effect('provider.turn.interrupt', threadId).payload).toMatchObject({
      attemptId,
      reason: 'steering_restart',
    });
    expect(effectsOf(h, threadId, 'provider.turn.steer')).toEqual([]);
    expect(h.store.projections.list('runs').filter((r) => r.threadId === threadId)).toHaveLength(1);
  });

  it('on an agent that cannot steer, a steer waits as the next run and a restart is refused', async () => {
    const h = withAgents();
    const { threadId, runId } = await busyThread(h, 'two');
    const steer = await send(h, threadId, 'in Rust instead', 'steer_active');
    expect(steer).toMatchObject({ ok: true, result: { dispatched: 'queued' } });
    expect(steer.result.runId).not.toBe(runId);
    const before = h.store.lastSequence();
    expect(await send(h, threadId, 'now', 'restart_active')).toMatchObject({
      ok: false,
      error: { code: 'invalid_transition' },
    });
    expect(h.store.lastSequence()).toBe(before);
    expect(effectsOf(h, threadId, 'provider.turn.interrupt')).toEqual([]);
    expect(effectsOf(h, threadId, 'provider.turn.steer')).toEqual([]);
  });

  it("a fork dispatches by its source's agent", async () => {
    const h = withAgents();
    const threadId = await h.thread({ provider: 'acp', acpAgent: 'one' });
    const t = await h.running(threadId, 'first');
    const runId = t.runId;
    const ref = { threadId, runId: t.runId, attemptId: t.attemptId, nodeId: t.rootNodeId };
    await h.feed({ type: 'turn.completed', ...ref, status: 'completed', error: null });
    await h.until(() => h.store.projections.get('runs', runId)!.status === 'completed');
    const fork = (await h.command({
      type: 'thread.fork',
      sourceThreadId: threadId,
      source: { type: 'run', threadId, runId },
    })) as Ack;
    const forkId = fork.result.threadId as string;
    await h.running(forkId, 'in the fork', 'turn-f');
    expect(await send(h, forkId, 'steer the fork', 'steer_active')).toMatchObject({
      ok: true,
      result: { dispatched: 'steered' },
    });
    expect(h.effect('provider.turn.interrupt', forkId).payload).toMatchObject({ reason: 'steering_restart' });
  });

  it("switching a thread to another agent moves it: a new provider thread told the earlier runs, dispatch by that agent's flags, and back again to the first agent's own", async () => {
    const h = withAgents();
    const { threadId, runId: first } = await busyThread(h, 'two');
    const onTwo = h.effect('provider.turn.start', threadId).payload.providerThreadId;
    const t = h.turn(threadId);
    await h.feed({
      type: 'turn.completed',
      ...{ threadId, runId: first, attemptId: t.attemptId, nodeId: t.rootNodeId },
      status: 'completed',
      error: null,
    });
    await h.until(() => h.store.projections.get('runs', first)!.status === 'completed');

    // To agent one (which steers by restart, where two cannot steer at all).
    expect(await h.command({ type: 'thread.settings.update', threadId, acpAgent: 'one' })).toMatchObject({ ok: true });
    expect(await send(h, threadId, 'go on')).toMatchObject({ ok: true, result: { dispatched: 'started' } });
    const onOne = h.effect('provider.turn.start', threadId).payload;
    expect(onOne).toMatchObject({ acpAgent: 'one', reason: 'provider_handoff', handoff: { sinceOrdinal: 0 } });
    expect(onOne.providerThreadId).not.toBe(onTwo);
    const second = h.turn(threadId);
    await h.feed({
      type: 'turn.started',
      threadId,
      runId: second.runId,
      attemptId: second.attemptId,
      nodeId: second.rootNodeId,
      nativeTurnRef: `turn_${second.attemptId}`,
    });
    expect(await send(h, threadId, 'in Rust instead', 'steer_active')).toMatchObject({
      ok: true,
      result: { runId: second.runId, dispatched: 'steered' },
    });
    expect(h.effect('provider.turn.interrupt', threadId).payload).toMatchObject({ reason: 'steering_restart' });
    // The interrupted attempt ends; the run restarts in a new one, which completes.
    await h.feed({
      type: 'turn.completed',
      ...{ threadId, runId: second.runId, attemptId: second.attemptId, nodeId: second.rootNodeId },
      status: 'interrupted',
      error: null,
    });
    await h.until(() => h.turn(threadId).attemptId !== second.attemptId);
    const restarted = h.turn(threadId);
    await h.feed({
      type: 'turn.completed',
      ...{ threadId, runId: restarted.runId, attemptId: restarted.attemptId, nodeId: restarted.rootNodeId },
      status: 'completed',
      error: null,
    });
    await h.until(() => h.store.projections.get('runs', second.runId)!.status === 'completed');

    // Back to two: its own provider thread, told only the run it missed; a steer waits again.
    expect(await h.command({ type: 'thread.settings.update', threadId, acpAgent: 'two' })).toMatchObject({ ok: true });
    await send(h, threadId, 'and now');
    expect(h.effect('provider.turn.start', threadId).payload).toMatchObject({
      acpAgent: 'two',
      providerThreadId: onTwo,
      reason: 'provider_handoff',
      handoff: { sinceOrdinal: 1 },
    });
    expect(await send(h, threadId, 'steer?', 'steer_active')).toMatchObject({
      ok: true,
      result: { dispatched: 'queued' },
    });
  });

  it('cleanContext with the same agent is refused; with another agent it starts that agent afresh', async () => {
    const h = withAgents();
    const threadId = await h.thread({ provider: 'acp', acpAgent: 'one' });
    const before = h.store.lastSequence();
    expect(
      await h.command({ type: 'thread.settings.update', threadId, acpAgent: 'one', cleanContext: true }),
    ).toMatchObject({ ok: false, error: { code: 'invalid_command', message: expect.stringMatching(/agent/) } });
    expect(h.store.lastSequence()).toBe(before);
    expect(
      await h.command({ type: 'thread.settings.update', threadId, acpAgent: 'two', cleanContext: true }),
    ).toMatchObject({ ok: true });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ acpAgent: 'two' });
  });
});

describe('the capability lookup', () => {
  it("the registry gives an agent's own declaration where its provider has one, else the provider's base", () => {
    const registry = new ProviderRegistry([scriptedAcp()]);
    expect(registry.capabilities('acp', 'one').version).toBe('acp-scripted/one');
    expect(registry.capabilities('acp', 'two').version).toBe('acp-scripted/two');
    expect(registry.capabilities('acp').version).toBe('acp-scripted/base');
    expect(registry.capabilities('acp', null).version).toBe('acp-scripted/base');
    const plain = new ProviderRegistry([scriptedAcp(false)]);
    expect(plain.capabilities('acp', 'one').version).toBe('acp-scripted/base');
    expect(() => plain.capabilities('codex', 'one')).toThrow(/no codex provider/);
  });

  it("Runtime.threadCapabilities is the thread's agent's; a thread Baton lacks is not_found", async () => {
    const h = withAgents();
    const one = await h.thread({ provider: 'acp', acpAgent: 'one' });
    const two = await h.thread({ provider: 'acp', acpAgent: 'two' });
    const codex = await h.thread();
    expect(h.runtime.threadCapabilities(one).version).toBe('acp-scripted/one');
    expect(h.runtime.threadCapabilities(two).version).toBe('acp-scripted/two');
    expect(h.runtime.threadCapabilities(codex)).toEqual(codexCapabilities);
    expect(() => h.runtime.threadCapabilities('thr_missing')).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('after a restart only the asks of agents whose requests do not survive it are marked not_resumable', async () => {
    const h = withAgents();
    const opened: Record<string, string> = {};
    for (const agent of ['one', 'two']) {
      const { threadId, runId } = await busyThread(h, agent);
      const t = h.turn(threadId);
      opened[agent] = `req_${agent}`;
      await h.feed({
        type: 'request.opened',
        threadId,
        runId,
        requestId: opened[agent],
        nodeId: `node_req_${agent}`,
        parentNodeId: t.rootNodeId,
        kind: 'command',
        prompt: 'Run ls?',
        details: { command: 'ls' },
        providerSessionId: `psess_${agent}`,
      });
    }
    const h2 = h.restart();
    expect(await h2.runtime.recoverAfterRestart()).toBe(1);
    expect(h2.store.projections.get('requests', opened.two!)).toMatchObject({
      responseCapability: { type: 'not_resumable' },
    });
    expect(h2.store.projections.get('requests', opened.one!)?.responseCapability.type).not.toBe('not_resumable');
  });
});

describe('ACP declarations', () => {
  const fixture = (agent: string): unknown =>
    JSON.parse(readFileSync(new URL(`../fixtures/acp/${agent}.initialize.json`, import.meta.url), 'utf8'));

  it("dispatch does not depend on initialize: each built-in agent's flags are the base's, so a thread created before its agent answered dispatches right", () => {
    for (const agent of ['claude-agent-acp', 'codex-acp']) {
      const own = acpCapabilities(acpAgentFeatures(fixture(agent)));
      expect(dispatchCapabilities(own)).toEqual(dispatchCapabilities(acpBaseCapabilities));
    }
  });
});
