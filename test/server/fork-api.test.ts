import { describe, expect, it } from 'vitest';
import { BatonClient, type CommandPayload } from '../../src/client/baton-client.js';
import { RunId, ThreadId } from '../../src/domain/ids.js';
import { responsesUserTexts, startScriptedModels, type ScriptedModels } from '../support/scripted-models.js';
import { userTexts } from '../support/messages-request.js';
import { useApiBatons } from '../support/api-batons.js';
import { assistantTexts, ok, type ThreadClient } from '../support/thread-client.js';

/**
 * Portable forks through the public Socket.IO API, across providers: a run of one provider
 * forked onto another (`thread.fork { provider }`) is resolved from Baton's own record of
 * the source, and the fork's first model request carries the source's history up to the
 * fork point and nothing after it. Real Baton, real agents, scripted models.
 */
const token = 'fork-api-test-token-0123456789';
const api = useApiBatons({ token, prefix: 'baton-fork-api', agentComms: ['node', 'claude', 'codex', 'codex-acp'] });
const { workspace, onCleanup } = api;

async function models(): Promise<ScriptedModels> {
  return startScriptedModels(onCleanup);
}

/** Two runs on the source: the fork is taken after the first. */
async function sourceWithTwoRuns(t: ThreadClient): Promise<RunId> {
  const one = await t.send('remember the number 42');
  expect(await t.ended(one)).toBe('completed');
  const two = await t.send('now remember the number 7');
  expect(await t.ended(two)).toBe('completed');
  return one;
}

async function fork(url: string, fields: CommandPayload<'thread.fork'>): Promise<ThreadClient> {
  const client = await BatonClient.connect(url, token);
  const result = ok<{ threadId: string; provider: string }>(await client.command('thread.fork', fields));
  client.close();
  return api.open(url, result.threadId);
}

/** What the fork's first request told the model: the source up to the fork point, nothing after. */
function expectToldUpToTheForkPoint(told: string): void {
  expect(told).toContain('remember the number 42');
  expect(told).toContain('Noted: 42.');
  expect(told).not.toContain('number 7');
  expect(told).not.toContain('Noted: 7.');
}

describe('portable forks across providers, through the Socket.IO API', () => {
  it('a Codex run forked onto Claude: Claude is told the Codex run, and nothing after it', async () => {
    const { messages, responses } = await models();
    const app = await api.baton({ claudeBaseUrl: messages.baseUrl, codexBaseUrl: responses.baseUrl });
    const source = await api.create(app.url, { cwd: workspace(), provider: 'codex' });
    responses.enqueue({ kind: 'text', text: 'Noted: 42.' }, { kind: 'text', text: 'Noted: 7.' });
    const runId = await sourceWithTwoRuns(source);
    const forked = await fork(app.url, {
      sourceThreadId: source.threadId,
      source: { type: 'run', threadId: source.threadId, runId },
      provider: 'claude',
    });
    messages.enqueue({ kind: 'text', text: 'The number was 42.' });
    const forkRun = await forked.send('what was the number?');
    expect(await forked.ended(forkRun)).toBe('completed');
    expectToldUpToTheForkPoint(userTexts(messages.messageRequests.at(-1)!).join('\n'));
    expect(assistantTexts(await forked.snapshot())).toEqual(['The number was 42.']);
    const resolved = forked.events.find((e) => e.type === 'thread.fork-resolved');
    expect(resolved?.payload).toMatchObject({ strategy: 'portable_context' });
    // The fork's transfer, materialized into the handoff its first run carried; both in the snapshot.
    const snap = (await forked.snapshot()) as unknown as {
      contextTransfers: { kind: string; status: string; handoffId: string; consumedByRunId: string }[];
      handoffs: { id: string; status: string; fromThreadId: string; coveredRunOrdinals: number[] }[];
    };
    expect(snap.contextTransfers).toMatchObject([{ kind: 'fork', status: 'consumed', consumedByRunId: forkRun }]);
    expect(snap.handoffs).toMatchObject([
      {
        id: snap.contextTransfers[0]!.handoffId,
        status: 'delivered',
        fromThreadId: source.threadId,
        coveredRunOrdinals: [1],
      },
    ]);
    // The source's provider was asked twice, by the source only.
    expect(responses.requests).toHaveLength(2);
  }, 120_000);

  it('a Claude run forked onto an ACP agent (codex-acp): the agent is told the Claude run, and nothing after it', async () => {
    const { messages, responses } = await models();
    const app = await api.baton({ claudeBaseUrl: messages.baseUrl, codexBaseUrl: responses.baseUrl });
    const source = await api.create(app.url, { cwd: workspace(), provider: 'claude' });
    messages.enqueue({ kind: 'text', text: 'Noted: 42.' }, { kind: 'text', text: 'Noted: 7.' });
    const runId = await sourceWithTwoRuns(source);
    const forked = await fork(app.url, {
      sourceThreadId: source.threadId,
      source: { type: 'run', threadId: source.threadId, runId },
      provider: 'acp',
      acpAgent: 'codex-acp',
    });
    responses.enqueue({ kind: 'text', text: 'The number was 42.' });
    const forkRun = await forked.send('what was the number?');
    expect(await forked.ended(forkRun)).toBe('completed');
    expectToldUpToTheForkPoint(responsesUserTexts(responses.requests.at(-1)!).join('\n'));
    expect(assistantTexts(await forked.snapshot())).toEqual(['The number was 42.']);
  }, 120_000);

  it('a fork onto provider acp without an agent, or with an unknown one, is refused, typed, and nothing is stored', async () => {
    const { messages, responses } = await models();
    const app = await api.baton({ claudeBaseUrl: messages.baseUrl, codexBaseUrl: responses.baseUrl });
    const source = await api.create(app.url, { cwd: workspace(), provider: 'codex' });
    responses.enqueue({ kind: 'text', text: 'Noted: 42.' });
    const one = await source.send('remember the number 42');
    expect(await source.ended(one)).toBe('completed');
    const client = await BatonClient.connect(app.url, token);
    onCleanup(() => client.close());
    const base = {
      sourceThreadId: source.threadId,
      source: { type: 'run' as const, threadId: source.threadId, runId: one },
    };
    const noAgent = await client.command('thread.fork', {
      ...base,
      threadId: ThreadId.parse('thr_noagent'),
      provider: 'acp',
    });
    expect(noAgent.ok ? null : noAgent.error.code).toBe('invalid_command');
    const unknown = await client.command('thread.fork', {
      ...base,
      threadId: ThreadId.parse('thr_unknown'),
      provider: 'acp',
      acpAgent: 'no-such-agent',
    });
    expect(unknown.ok ? null : unknown.error.code).toBe('invalid_payload');
    const agentElsewhere = await client.command('thread.fork', {
      ...base,
      threadId: ThreadId.parse('thr_agent'),
      acpAgent: 'codex-acp',
    });
    expect(agentElsewhere.ok ? null : agentElsewhere.error.code).toBe('invalid_command');
    const answer = await client.query({ type: 'snapshot', request: { stream: 'threads' } });
    const stored = (answer.result as { snapshot: { threads: { id: string }[] } }).snapshot.threads.map((x) => x.id);
    expect(stored).toEqual([source.threadId]);
  }, 120_000);
});
