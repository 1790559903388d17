import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DomainEvent } from '../../src/domain/events.js';
import type { BatonApp } from '../../src/app/baton-app.js';
import { signal } from '../support/processes.js';
import { codexModel } from '../providers/codex-scenarios.js';
import { useInProcessBaton } from '../support/in-process-baton.js';
import { echoedCall, echoServers } from '../support/mcp-echo.js';

const batons = useInProcessBaton('baton-config');
const folders = batons.folders;

const terminal = (app: BatonApp, runId: string) =>
  app.runtime.store.events
    .readAfter(0, 100_000)
    .find((e: DomainEvent) => e.type === 'run.terminal' && (e.payload as { runId: string }).runId === runId)
    ?.payload as { status: string; error: { code: string; message: string } | null } | undefined;

describe('the configuration takes effect', () => {
  it('BATON_TURN_IDLE_TIMEOUT_MS, BATON_INTERRUPT_TIMEOUT_MS and BATON_GIT_TIMEOUT_MS reach the watchdog, the interrupt escalation and git', async () => {
    const env = { BATON_TURN_IDLE_TIMEOUT_MS: '1500', BATON_INTERRUPT_TIMEOUT_MS: '1000', BATON_GIT_TIMEOUT_MS: '100' };
    const { app, turns, ok, until } = await batons.start(env);
    turns.push({ kind: 'silent' }, { kind: 'hang', text: 'Working' });
    const command = (cmd: Record<string, unknown>) => ok<{ threadId: string; runId: string }>(cmd);
    const status = (runId: string) => app.runtime.store.projections.get('runs', runId)?.status;

    // The model never answers: the watchdog of 1.5 s (not the default 5 min) fails the turn.
    const { threadId } = await command({ type: 'thread.create', cwd: folders.make('baton-config-ws-') });
    const silent = await command({ type: 'thread.message.send', threadId, text: 'anyone there?' });
    await until(() => status(silent.runId) === 'failed', 'the silent turn to fail');
    expect(terminal(app, silent.runId)!.error).toMatchObject({ code: 'timeout' });

    // Codex frozen mid-turn: the interrupt escalates after 1 s (not the default 10 s).
    const hanging = await command({ type: 'thread.message.send', threadId, text: 'take your time' });
    await until(
      () => status(hanging.runId) === 'running' && app.codex.adapter(threadId).pid !== null,
      'the hanging turn to run',
    );
    const pid = app.codex.adapter(threadId).pid!;
    signal(pid, 'SIGSTOP');
    try {
      await command({ type: 'run.interrupt', runId: hanging.runId });
      await until(() => status(hanging.runId) === 'interrupted', 'the escalated interrupt');
      expect(terminal(app, hanging.runId)!.error).toMatchObject({
        code: 'timeout',
        message: expect.stringContaining('within 1000 ms'),
      });
    } finally {
      signal(pid, 'SIGKILL');
    }

    // A workspace git cannot add in 100 ms: its checkpoints are recorded as git timeouts.
    const big = folders.make('baton-config-big-');
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(big, `d${d}`));
      for (let f = 0; f < 500; f++) writeFileSync(join(big, `d${d}`, `f${f}.txt`), `${d}-${f}\n`);
    }
    const other = await command({ type: 'thread.create', cwd: big });
    const run = await command({ type: 'thread.message.send', threadId: other.threadId, text: 'hello' });
    await until(() => ['completed', 'failed'].includes(status(run.runId) ?? ''), 'the run in the big workspace to end');
    const checkpoints = app.runtime.store.projections.list('checkpoints', other.threadId);
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(checkpoints.every((c) => c.status === 'error' && /timed out after 100 ms/.test(c.reason ?? ''))).toBe(true);
  }, 90_000);

  it('BATON_MCP_SERVERS reaches Codex and an ACP agent (codex-acp): each runs the server and shows the call as an MCP tool node', async () => {
    const { app, turns, ok, until } = await batons.start({ BATON_MCP_SERVERS: JSON.stringify(echoServers) });
    for (const provider of [{ provider: 'codex' }, { provider: 'acp', acpAgent: 'codex-acp' }]) {
      turns.push(
        ...codexModel([
          { kind: 'mcp_call', server: 'echo', tool: 'echo', args: { text: provider.provider }, callId: 'call_echo' },
          { kind: 'text', text: 'Echoed.' },
        ]),
      );
      const { threadId } = await ok<{ threadId: string }>({
        type: 'thread.create',
        cwd: batons.folders.make('baton-config-ws-'),
        ...provider,
      });
      const { runId } = await ok<{ runId: string }>({
        type: 'thread.message.send',
        threadId,
        text: 'echo through MCP',
      });
      const run = () => app.runtime.store.projections.get('runs', runId);
      await until(() => run()?.status === 'completed', `the ${provider.provider} run to complete`);
      const tool = app.runtime.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'tool_call');
      expect(tool, provider.provider).toMatchObject(echoedCall(provider.provider));
    }
  }, 150_000);
});
