import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import type { DomainEvent } from '../../src/domain/events.js';
import type { ModelTurn } from '../../src/providers/model/scripted-model-server.js';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import { signal } from '../support/processes.js';
import { TempFolders } from '../support/temp.js';
import { codexModel } from '../providers/codex-scenarios.js';

const folders = new TempFolders();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  folders.removeAll();
});

/** Resolves once `condition` holds, checked after each committed batch of events. */
function when(app: BatonApp, condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (off(), reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
    const check = () => {
      if (!condition()) return;
      clearTimeout(timer);
      off();
      resolve();
    };
    const off = app.runtime.onEvents(check);
    check();
  });
}

const terminal = (app: BatonApp, runId: string) =>
  app.runtime.store.events
    .readAfter(0, 100_000)
    .find((e: DomainEvent) => e.type === 'run.terminal' && (e.payload as { runId: string }).runId === runId)
    ?.payload as { status: string; error: { code: string; message: string } | null } | undefined;

describe('the configuration takes effect', () => {
  it('BATON_TURN_IDLE_TIMEOUT_MS, BATON_INTERRUPT_TIMEOUT_MS and BATON_GIT_TIMEOUT_MS reach the watchdog, the interrupt escalation and git', async () => {
    const turns: ModelTurn[] = [{ kind: 'silent' }, { kind: 'hang', text: 'Working' }];
    const env = { BATON_TURN_IDLE_TIMEOUT_MS: '1500', BATON_INTERRUPT_TIMEOUT_MS: '1000', BATON_GIT_TIMEOUT_MS: '100' };
    const config = loadConfig(env, {
      dataDir: folders.make('baton-config-'),
      port: 0,
      token: 'config-test-token-0123456789',
      model: 'scripted',
    });
    const app = await startBaton(config, pino({ level: 'silent' }), {
      responder: () => turns.shift() ?? { kind: 'text', text: 'ok' },
    });
    cleanups.push(() => app.stop());
    const command = async (cmd: Record<string, unknown>) => {
      const ack = await app.runtime.dispatch({ commandId: `cmd_${Math.random()}`, ...cmd });
      if (!ack.ok) throw new Error(JSON.stringify(ack.error));
      return ack.result as { threadId: string; runId: string };
    };
    const status = (runId: string) => app.runtime.store.projections.get('runs', runId)?.status;

    // The model never answers: the watchdog of 1.5 s (not the default 5 min) fails the turn.
    const { threadId } = await command({ type: 'thread.create', cwd: folders.make('baton-config-ws-') });
    const silent = await command({ type: 'thread.message.send', threadId, text: 'anyone there?' });
    await when(app, () => status(silent.runId) === 'failed', 'the silent turn to fail');
    expect(terminal(app, silent.runId)!.error).toMatchObject({ code: 'timeout' });

    // Codex frozen mid-turn: the interrupt escalates after 1 s (not the default 10 s).
    const hanging = await command({ type: 'thread.message.send', threadId, text: 'take your time' });
    await when(
      app,
      () => status(hanging.runId) === 'running' && app.codex.adapter(threadId).pid !== null,
      'the hanging turn to run',
    );
    const pid = app.codex.adapter(threadId).pid!;
    signal(pid, 'SIGSTOP');
    try {
      await command({ type: 'run.interrupt', runId: hanging.runId });
      await when(app, () => status(hanging.runId) === 'interrupted', 'the escalated interrupt');
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
    await when(
      app,
      () => ['completed', 'failed'].includes(status(run.runId) ?? ''),
      'the run in the big workspace to end',
    );
    const checkpoints = app.runtime.store.projections.list('checkpoints', other.threadId);
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(checkpoints.every((c) => c.status === 'error' && /timed out after 100 ms/.test(c.reason ?? ''))).toBe(true);
  }, 90_000);

  it('BATON_MCP_SERVERS reaches Codex and an ACP agent (codex-acp): each runs the server and shows the call as an MCP tool node', async () => {
    const echoServer = fileURLToPath(new URL('../fixtures/mcp/echo-server.mjs', import.meta.url));
    const env = { BATON_MCP_SERVERS: JSON.stringify({ echo: { command: process.execPath, args: [echoServer] } }) };
    const config = loadConfig(env, {
      dataDir: folders.make('baton-config-'),
      port: 0,
      token: 'config-test-token-0123456789',
      model: 'scripted',
    });
    const turns: ModelTurn[] = [];
    const app = await startBaton(config, pino({ level: 'silent' }), {
      responder: () => turns.shift() ?? { kind: 'text', text: 'ok' },
    });
    cleanups.push(() => app.stop());
    const command = async (cmd: Record<string, unknown>) => {
      const ack = await app.runtime.dispatch({ commandId: `cmd_${Math.random()}`, ...cmd });
      if (!ack.ok) throw new Error(JSON.stringify(ack.error));
      return ack.result as { threadId: string; runId: string };
    };
    for (const provider of [{ provider: 'codex' }, { provider: 'acp', acpAgent: 'codex-acp' }]) {
      turns.push(
        ...codexModel([
          { kind: 'mcp_call', server: 'echo', tool: 'echo', args: { text: provider.provider }, callId: 'call_echo' },
          { kind: 'text', text: 'Echoed.' },
        ]),
      );
      const { threadId } = await command({ type: 'thread.create', cwd: folders.make('baton-config-ws-'), ...provider });
      const { runId } = await command({ type: 'thread.message.send', threadId, text: 'echo through MCP' });
      await when(
        app,
        () => app.runtime.store.projections.get('runs', runId)?.status === 'completed',
        `the ${provider.provider} run to complete`,
        60_000,
      );
      const tool = app.runtime.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'tool_call');
      expect(tool, provider.provider).toMatchObject({
        title: 'echo/echo',
        status: 'completed',
        detail: {
          tool: 'mcp',
          server: 'echo',
          name: 'echo',
          arguments: { text: provider.provider },
          result: { content: [{ type: 'text', text: `echo: ${provider.provider}` }] },
          error: null,
        },
      });
    }
  }, 150_000);
});
