import { describe, expect, it } from 'vitest';
import { responsesUserTexts, startScriptedModels, type ScriptedModels } from '../support/scripted-models.js';
import { RunId } from '../../src/domain/ids.js';
import { userTexts } from '../support/messages-request.js';
import { useApiBatons } from '../support/api-batons.js';
import { assistantTexts, ok, type ThreadClient } from '../support/thread-client.js';

/**
 * Provider switches through the public Socket.IO API: one thread moves between Codex,
 * Claude and an ACP agent. The first run on a provider thread that lacks runs carries
 * Baton's account of them (all of them for a new one, only the ones it missed when the
 * thread returns to it), and the provider's own earlier thread is taken up again. Real
 * Baton, real agents, scripted models.
 */
const token = 'switch-api-test-token-0123456789';
const api = useApiBatons({ token, prefix: 'baton-switch-api', agentComms: ['node', 'claude', 'codex', 'codex-acp'] });
const { workspace, onCleanup } = api;

async function setup(): Promise<ScriptedModels & { url: string }> {
  const models = await startScriptedModels(onCleanup);
  const app = await api.baton(models.config);
  return { ...models, url: app.url };
}

async function sendOn(t: ThreadClient, text: string, fields: Record<string, unknown> = {}): Promise<RunId> {
  const { runId } = ok<{ runId: string }>(
    await t.client.command('thread.message.send', { threadId: t.threadId, text, ...fields }),
  );
  return RunId.parse(runId);
}

async function completes(t: ThreadClient, runId: RunId): Promise<void> {
  expect(await t.ended(runId)).toBe('completed');
}

describe('provider switches through the Socket.IO API', () => {
  it('Codex -> Claude -> Codex: Claude is told the Codex runs; Codex, taken up again, is told only what Claude said', async () => {
    const { url, messages, responses } = await setup();
    const t = await api.create(url, { cwd: workspace(), provider: 'codex' });
    responses.enqueue({ kind: 'text', text: 'Codex one.' }, { kind: 'text', text: 'Codex two.' });
    await completes(t, await sendOn(t, 'first on codex'));
    await completes(t, await sendOn(t, 'second on codex'));

    messages.enqueue({ kind: 'text', text: 'Claude three.' });
    await completes(t, await sendOn(t, 'third, on claude', { provider: 'claude' }));
    const toClaude = userTexts(messages.messageRequests.at(-1)!).join('\n');
    expect(toClaude).toContain('first on codex');
    expect(toClaude).toContain('Codex two.');
    expect(toClaude).toContain('third, on claude');

    responses.enqueue({ kind: 'text', text: 'Codex four.' });
    await completes(t, await sendOn(t, 'fourth, back on codex', { provider: 'codex' }));
    const request = responses.requests.at(-1)!;
    const items = responsesUserTexts(request);
    const last = items.at(-1)!;
    // The delta: Claude's run only, then the message.
    expect(last).toContain('Claude three.');
    expect(last).toContain('third, on claude');
    expect(last).not.toContain('first on codex');
    expect(last).toContain('fourth, back on codex');
    // Codex's own thread was taken up again: its earlier turns are there natively.
    expect(items.some((i) => i.includes('first on codex') && !i.includes('Context from Baton'))).toBe(true);
    expect(request.body.prompt_cache_key).toBe(responses.requests[0]!.body.prompt_cache_key);

    const snap = await t.snapshot();
    expect(assistantTexts(snap)).toEqual(['Codex one.', 'Codex two.', 'Claude three.', 'Codex four.']);
    const seeds = t.events.filter((e) => e.type === 'context.seeded').map((e) => e.payload);
    expect(seeds.map((s) => [s.strategy, s.coveredRunOrdinals])).toEqual([
      ['full', [1, 2]],
      ['delta', [3]],
    ]);
    // Each switch is an auditable transfer, materialized into the handoff its run carried.
    const transfers = t.events.filter((e) => e.type === 'context-transfer.recorded').map((e) => e.payload.transfer);
    expect(transfers.map((x) => [x.kind, x.fromProvider, x.toProvider])).toEqual([
      ['provider_handoff', 'codex', 'claude'],
      ['provider_handoff', 'claude', 'codex'],
    ]);
    const ended = t.events
      .filter((e) => e.type === 'context-transfer.status-changed')
      .map((e) => [e.payload.transferId, e.payload.to, e.payload.handoffId === seeds[0]!.handoffId]);
    expect(ended.filter(([, to]) => to === 'consumed').map(([id]) => id)).toEqual(transfers.map((x) => x.id));
    expect(seeds.every((s) => s.handoffId !== undefined && s.transferId !== null)).toBe(true);
  }, 180_000);

  it('Claude -> codex-acp -> Claude, the same across an ACP agent', async () => {
    const { url, messages, responses } = await setup();
    const t = await api.create(url, { cwd: workspace(), provider: 'claude' });
    messages.enqueue({ kind: 'text', text: 'Claude one.' });
    await completes(t, await sendOn(t, 'first on claude'));

    responses.enqueue({ kind: 'text', text: 'ACP two.' });
    await completes(t, await sendOn(t, 'second, on codex-acp', { provider: 'acp', acpAgent: 'codex-acp' }));
    const toAcp = responsesUserTexts(responses.requests.at(-1)!).join('\n');
    expect(toAcp).toContain('first on claude');
    expect(toAcp).toContain('Claude one.');

    messages.enqueue({ kind: 'text', text: 'Claude three.' });
    await completes(t, await sendOn(t, 'third, back on claude', { provider: 'claude' }));
    const back = messages.messageRequests.at(-1)!;
    const texts = userTexts(back);
    // Claude's session was resumed (its first turn is there as it was), and told only the ACP run.
    expect(texts[0]).toBe('first on claude');
    expect(texts.at(-1)).toContain('ACP two.');
    expect(texts.at(-1)).not.toContain('Claude one.');
  }, 180_000);

  it('claude-agent-acp -> codex-acp -> claude-agent-acp: another ACP agent is a switch too (its sessions are its own)', async () => {
    const { url, messages, responses } = await setup();
    const t = await api.create(url, { cwd: workspace(), provider: 'acp', acpAgent: 'claude-agent-acp' });
    messages.enqueue({ kind: 'text', text: 'Claude ACP one.' });
    await completes(t, await sendOn(t, 'first on claude-agent-acp'));

    // By the thread's settings: its next run goes to codex-acp, in a session of its own, told run 1.
    ok(await t.client.command('thread.settings.update', { threadId: t.threadId, acpAgent: 'codex-acp' }));
    responses.enqueue({ kind: 'text', text: 'Codex ACP two.' });
    await completes(t, await sendOn(t, 'second, on codex-acp'));
    const toCodex = responsesUserTexts(responses.requests.at(-1)!).join('\n');
    expect(toCodex).toContain('first on claude-agent-acp');
    expect(toCodex).toContain('Claude ACP one.');

    // By a message: back to claude-agent-acp, whose session is taken up again and told only run 2.
    messages.enqueue({ kind: 'text', text: 'Claude ACP three.' });
    await completes(t, await sendOn(t, 'third, back on claude-agent-acp', { acpAgent: 'claude-agent-acp' }));
    const texts = userTexts(messages.messageRequests.at(-1)!);
    expect(texts[0]).toBe('first on claude-agent-acp');
    expect(texts.at(-1)).toContain('Codex ACP two.');
    expect(texts.at(-1)).not.toContain('Claude ACP one.');

    const snap = await t.snapshot();
    expect(assistantTexts(snap)).toEqual(['Claude ACP one.', 'Codex ACP two.', 'Claude ACP three.']);
    const seeds = t.events.filter((e) => e.type === 'context.seeded').map((e) => e.payload);
    expect(seeds.map((s) => [s.strategy, s.coveredRunOrdinals])).toEqual([
      ['full', [1]],
      ['delta', [2]],
    ]);
    const transfers = t.events.filter((e) => e.type === 'context-transfer.recorded').map((e) => e.payload.transfer);
    expect(transfers.map((x) => [x.kind, x.fromProvider, x.toProvider])).toEqual([
      ['provider_handoff', 'acp', 'acp'],
      ['provider_handoff', 'acp', 'acp'],
    ]);
  }, 180_000);

  it('a switch after a rollback does not carry the rolled-back runs', async () => {
    const { url, messages, responses } = await setup();
    const t = await api.create(url, { cwd: workspace(), provider: 'codex' });
    responses.enqueue({ kind: 'text', text: 'Kept answer.' }, { kind: 'text', text: 'Rolled-back answer.' });
    await completes(t, await sendOn(t, 'kept message'));
    await completes(t, await sendOn(t, 'rolled-back message'));
    ok(await t.client.command('rollback.toRun', { threadId: t.threadId, runOrdinal: 1 }));
    await t.next((e) => (e.type === 'thread.rolled-back' ? e : undefined), 'the rollback');

    messages.enqueue({ kind: 'text', text: 'On Claude.' });
    await completes(t, await sendOn(t, 'now on claude', { provider: 'claude' }));
    const told = userTexts(messages.messageRequests.at(-1)!).join('\n');
    expect(told).toContain('kept message');
    expect(told).not.toContain('rolled-back message');
    expect(told).not.toContain('Rolled-back answer.');

    // Rolling back the run that carried the handoff supersedes it and its transfer.
    const handoff = t.events.filter((e) => e.type === 'context.seeded').at(-1)!.payload;
    ok(await t.client.command('rollback.toRun', { threadId: t.threadId, runOrdinal: 1 }));
    await t.next(
      (e) => (e.type === 'context-handoff.status-changed' && e.payload.handoffId === handoff.handoffId ? e : undefined),
      'the handoff superseded',
    );
    const transfer = await t.next(
      (e) =>
        e.type === 'context-transfer.status-changed' &&
        e.payload.transferId === handoff.transferId &&
        e.payload.to === 'superseded'
          ? e.payload
          : undefined,
      'its transfer superseded',
    );
    expect(transfer.reason).toBe('rolled back to run 1');
  }, 180_000);

  it('refusals: an unknown agent, a steer that switches, cleanContext without a switch; nothing changes', async () => {
    const { url, responses } = await setup();
    const t = await api.create(url, { cwd: workspace(), provider: 'codex' });
    const refused = async (fields: Record<string, unknown>) => {
      const ack = await t.client.command('thread.message.send', { threadId: t.threadId, text: 'x', ...fields });
      return ack.ok ? 'accepted' : ack.error.code;
    };
    expect(await refused({ provider: 'acp' })).toBe('invalid_command');
    expect(await refused({ provider: 'acp', acpAgent: 'nope' })).toBe('invalid_payload');
    expect(await refused({ cleanContext: true })).toBe('invalid_command');
    // A message's acpAgent on a Codex thread names no provider to switch to.
    expect(await refused({ acpAgent: 'codex-acp' })).toBe('invalid_command');
    responses.enqueue({ kind: 'hang' });
    const active = await sendOn(t, 'a long one');
    await responses.waitForRequests(1);
    expect(await refused({ provider: 'claude', dispatchMode: 'steer_active' })).toBe('invalid_command');
    const snap = await t.snapshot();
    expect(snap.runs.map((r) => r.id)).toEqual([active]);
    ok(await t.client.command('run.interrupt', { runId: active }));
    expect(await t.ended(active)).toBe('interrupted');
  }, 180_000);
});
