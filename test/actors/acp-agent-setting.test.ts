import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import type { ErrorCode } from '../../src/domain/errors.js';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import type { Provider } from '../../src/providers/provider.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { useRuntime, type Harness } from '../support/runtime.js';

/**
 * The ACP thread setting `acpAgent` (issue 14): which ACP agent a thread with provider
 * `acp` runs. It is checked at the command through the provider seam (the registered ACP
 * provider's `agents`), stored on the thread, shown on its row and carried on every turn
 * start. The ACP provider here is a scripted one defined in this test: its effects wait in
 * the outbox, where the test reads what the runtime asked of it.
 */
const scriptedAcp = (agents: readonly string[]): Provider => ({
  id: 'acp',
  capabilities: { ...codexCapabilities, version: 'acp-scripted/1' },
  appliedSettings: ['acpAgent'],
  agents,
  handlers: {},
  createNormalizer: () => ({ normalize: () => [] }),
});

const withAcp = useRuntime({ providers: () => [scriptedAcp(['one', 'two'])] });
const withoutAcp = useRuntime();

let n = 0;
const cwdOf = (h: Harness) => join(dirname(h.path), 'workspace');

async function ok(h: Harness, command: Record<string, unknown>): Promise<Record<string, unknown>> {
  const ack = (await h.command(command)) as { ok: boolean; result: Record<string, unknown> };
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
  return ack.result;
}

/** Refused with `code` and nothing changes: no event, no thread row (a receipt may keep the refusal for a retry). */
async function refused(
  h: Harness,
  command: Record<string, unknown>,
  code: ErrorCode,
  message?: RegExp,
): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  const before = h.store.lastSequence();
  const threads = h.store.projections.list('threads');
  const commandId = `cmd_acp_refused_${++n}`;
  const ack = (await h.command({ commandId, ...command })) as {
    ok: boolean;
    error: { code: string; message: string; details?: Record<string, unknown> };
  };
  expect(ack, JSON.stringify(ack)).toMatchObject({ ok: false, error: { code } });
  if (message) expect(ack.error.message).toMatch(message);
  expect(h.store.lastSequence()).toBe(before);
  expect(h.store.projections.list('threads')).toEqual(threads);
  const receipt = h.store.receipts.get(commandId);
  if (receipt) expect(receipt).toMatchObject({ ok: false });
  return ack.error;
}

const turnStart = (h: Harness, threadId: string) => h.effect('provider.turn.start', threadId).payload;

async function finishTurn(h: Harness, threadId: string): Promise<void> {
  const t = h.turn(threadId);
  const ref = { threadId, runId: t.runId, attemptId: t.attemptId, nodeId: t.rootNodeId };
  await h.feed({ type: 'turn.started', ...ref, nativeTurnRef: `turn_${t.attemptId}` });
  await h.feed({ type: 'turn.completed', ...ref, status: 'completed', error: null });
  await h.until(() => h.store.projections.get('runs', t.runId)!.status === 'completed');
}

describe('thread.create with provider acp: acpAgent', () => {
  it("a known agent is the thread's: its row shows it and the first turn start carries it", async () => {
    const h = withAcp();
    const threadId = await h.thread({ provider: 'acp', acpAgent: 'two' });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ provider: 'acp', acpAgent: 'two' });
    await h.send(threadId, 'hello');
    expect(turnStart(h, threadId)).toMatchObject({ provider: 'acp', acpAgent: 'two', text: 'hello' });
  });

  it('an agent the ACP provider does not run is refused invalid_payload naming the known ones, and nothing is stored', async () => {
    const h = withAcp();
    const error = await refused(
      h,
      { type: 'thread.create', cwd: cwdOf(h), provider: 'acp', acpAgent: 'three' },
      'invalid_payload',
      /three.*one, two/,
    );
    expect(error.details).toMatchObject({ acpAgent: 'three', known: ['one', 'two'] });
    expect(h.store.projections.list('threads')).toEqual([]);
  });

  it('no acpAgent with provider acp is refused invalid_command', async () => {
    const h = withAcp();
    await refused(h, { type: 'thread.create', cwd: cwdOf(h), provider: 'acp' }, 'invalid_command', /acpAgent/);
    expect(h.store.projections.list('threads')).toEqual([]);
  });

  it('acpAgent on a thread of another provider is refused invalid_command', async () => {
    const h = withAcp();
    await refused(h, { type: 'thread.create', cwd: cwdOf(h), acpAgent: 'one' }, 'invalid_command', /acpAgent/);
    await refused(
      h,
      { type: 'thread.create', cwd: cwdOf(h), provider: 'codex', acpAgent: 'one' },
      'invalid_command',
      /acpAgent.*acp/,
    );
    expect(h.store.projections.list('threads')).toEqual([]);
  });

  it('an empty name is refused invalid_command (the schema), not looked up', async () => {
    const h = withAcp();
    await refused(h, { type: 'thread.create', cwd: cwdOf(h), provider: 'acp', acpAgent: '' }, 'invalid_command');
  });

  it('a codex thread has no agent: its row and turn start say null', async () => {
    const h = withAcp();
    const threadId = await h.thread();
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ provider: 'codex', acpAgent: null });
    await h.send(threadId, 'hello');
    expect(turnStart(h, threadId)).toMatchObject({ provider: 'codex', acpAgent: null });
  });

  it('with no ACP provider registered, provider acp stays refused unsupported (the agent is not looked at)', async () => {
    const h = withoutAcp();
    await refused(
      h,
      { type: 'thread.create', cwd: cwdOf(h), provider: 'acp', acpAgent: 'one' },
      'unsupported',
      /no acp provider/,
    );
    await refused(h, { type: 'thread.create', cwd: cwdOf(h), provider: 'acp' }, 'unsupported', /no acp provider/);
  });
});

describe('thread.settings.update: acpAgent', () => {
  it('switches the agent from the next run on; the active run keeps its own', async () => {
    const h = withAcp();
    const threadId = await h.thread({ provider: 'acp', acpAgent: 'one' });
    await h.send(threadId, 'first');
    const queued = await h.send(threadId, 'second', { dispatchMode: 'queue_after_active' });
    await ok(h, { type: 'thread.settings.update', threadId, acpAgent: 'two' });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ acpAgent: 'two' });
    expect(turnStart(h, threadId)).toMatchObject({ acpAgent: 'one', text: 'first' });
    await finishTurn(h, threadId);
    expect(h.turn(threadId).runId).toBe(queued);
    expect(turnStart(h, threadId)).toMatchObject({ acpAgent: 'two', text: 'second' });
  });

  it('an unknown agent is refused invalid_payload and the thread keeps its own', async () => {
    const h = withAcp();
    const threadId = await h.thread({ provider: 'acp', acpAgent: 'one' });
    await refused(
      h,
      { type: 'thread.settings.update', threadId, acpAgent: 'nope' },
      'invalid_payload',
      /nope.*one, two/,
    );
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ acpAgent: 'one' });
  });

  it('acpAgent on a codex thread is refused invalid_command', async () => {
    const h = withAcp();
    const threadId = await h.thread();
    await refused(h, { type: 'thread.settings.update', threadId, acpAgent: 'one' }, 'invalid_command', /acpAgent/);
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ acpAgent: null });
  });

  it('an update of another setting leaves the agent as it is', async () => {
    const h = withAcp();
    const threadId = await h.thread({ provider: 'acp', acpAgent: 'two' });
    await ok(h, { type: 'thread.settings.update', threadId, title: 'Renamed' });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ title: 'Renamed', acpAgent: 'two' });
    await h.send(threadId, 'go');
    expect(turnStart(h, threadId)).toMatchObject({ acpAgent: 'two' });
  });
});

describe('thread.fork of an ACP thread', () => {
  it("keeps the source's agent", async () => {
    const h = withAcp();
    const threadId = await h.thread({ provider: 'acp', acpAgent: 'two' });
    const runId = await h.send(threadId, 'one');
    await finishTurn(h, threadId);
    const fork = (await ok(h, {
      type: 'thread.fork',
      sourceThreadId: threadId,
      source: { type: 'run', threadId, runId },
    })) as { threadId: string };
    expect(h.store.projections.get('threads', fork.threadId)).toMatchObject({ provider: 'acp', acpAgent: 'two' });
    await h.send(fork.threadId, 'in the fork');
    expect(turnStart(h, fork.threadId)).toMatchObject({ acpAgent: 'two' });
  });
});

describe('the registry', () => {
  it("names the agents a provider runs: the ACP provider's, none for one that runs no agents", () => {
    const registry = new ProviderRegistry([scriptedAcp(['one', 'two'])]);
    expect(registry.agents('acp')).toEqual(['one', 'two']);
    expect(registry.agents('codex')).toEqual([]);
  });
});
