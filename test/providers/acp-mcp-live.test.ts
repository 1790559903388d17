import { describe, expect, it } from 'vitest';
import { useLiveAcp, type LiveAcpRun } from '../support/live-acp.js';
import { echoedCall, echoServers } from '../support/mcp-echo.js';
import type { Harness } from '../support/runtime.js';
import type { ModelStep } from '../support/scenario-kit/model-steps.js';
import { claudeModel } from './claude-model.js';
import { codexModel } from './codex-scenarios.js';

/**
 * Baton's MCP servers reach every session an agent process opens, not only a new one: after
 * Baton restarted (a new process takes the session up with session/resume) and in a native
 * fork (session/fork), the model's call of the server's tool runs it. (A new session's call is
 * the shared scenario mcp_tool_call, live and replayed.)
 */
const acp = useLiveAcp();

const mcpServers = echoServers;
const echoCall = (callId: string): ModelStep[] => [
  { kind: 'mcp_call', server: 'echo', tool: 'echo', args: { text: callId }, callId },
  { kind: 'text', text: 'Echoed.' },
];

/** Queues the steps on the agent's scripted model. */
function enqueue(run: LiveAcpRun, agent: 'claude-agent-acp' | 'codex-acp', steps: ModelStep[]): void {
  if (agent === 'claude-agent-acp') run.messages.enqueue(...claudeModel(steps, { cwd: run.cwd }));
  else run.responses.enqueue(...codexModel(steps));
}

/** Sends the message and waits for its run to end, granting the ask an agent may make before an MCP call. */
async function runGranting(h: Harness, threadId: string, text: string): Promise<string> {
  const runId = await h.send(threadId, text);
  const asked = () => h.store.projections.list('requests', threadId).find((r) => r.status === 'pending');
  await h.until(() => h.ended(runId) || asked() !== undefined);
  const ask = asked();
  if (ask) {
    const ack = await h.command({ type: 'runtime-request.respond', requestId: ask.id, decision: 'accept' });
    expect(ack.ok, JSON.stringify(ack)).toBe(true);
  }
  await h.until(() => h.ended(runId));
  expect(h.store.projections.get('runs', runId)?.status).toBe('completed');
  return runId;
}

/** The run's MCP tool node, as the projection holds it. */
const mcpNode = (h: Harness, threadId: string, runId: string) =>
  h.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'tool_call' && n.runId === runId);

describe('ACP MCP servers beyond session/new, live', () => {
  for (const agent of ['claude-agent-acp', 'codex-acp'] as const) {
    it(`${agent}: the session taken up after a restart has the server`, { timeout: 90_000 }, async () => {
      const run = await acp.setup({ provider: { mcpServers } });
      enqueue(run, agent, [{ kind: 'text', text: 'Noted.' }, ...echoCall('after_restart')]);
      const threadId = await run.h.thread({
        threadId: 'thr_mcp_resume',
        cwd: run.cwd,
        provider: 'acp',
        acpAgent: agent,
      });
      await runGranting(run.h, threadId, 'note this');
      const h2 = await acp.restart(run.h);
      const two = await runGranting(h2, threadId, 'echo it through MCP');
      expect(mcpNode(h2, threadId, two)).toMatchObject(echoedCall('after_restart'));
    });
  }

  it('claude-agent-acp: a native fork has the server', { timeout: 90_000 }, async () => {
    const run = await acp.setup({ provider: { mcpServers } });
    const { h } = run;
    enqueue(run, 'claude-agent-acp', [{ kind: 'text', text: 'Noted.' }, ...echoCall('in_fork')]);
    const source = await h.thread({
      threadId: 'thr_mcp_src',
      cwd: run.cwd,
      provider: 'acp',
      acpAgent: 'claude-agent-acp',
    });
    const one = await runGranting(h, source, 'note this');
    const forked = await h.command({
      type: 'thread.fork',
      sourceThreadId: source,
      source: { type: 'run', threadId: source, runId: one },
      threadId: 'thr_mcp_fork',
    });
    expect(forked.ok, JSON.stringify(forked)).toBe(true);
    const two = await runGranting(h, 'thr_mcp_fork', 'echo it through MCP');
    const resolved = h.store.events.readThreadAfter('thr_mcp_fork', 0).find((e) => e.type === 'thread.fork-resolved');
    expect((resolved?.payload as { strategy?: string }).strategy).toBe('native_fork');
    expect(mcpNode(h, 'thr_mcp_fork', two)).toMatchObject(echoedCall('in_fork'));
  });
});
