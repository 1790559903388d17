import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { BACKGROUND_NOTE, wakeText } from '../../src/actors/delegated-task-wake.js';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import { loadConfig } from '../../src/config.js';
import type { MessagesRequest, MessagesTurn } from '../../src/providers/model/scripted-messages-server.js';
import { useBatons } from '../support/baton-app.js';
import { claudeAgents } from '../support/live-claude.js';
import { tempDir } from '../support/temp.js';
import { mcpClient, ok, untilCommitted } from './mcp-support.js';

// A delegated Claude child whose run has ended while a background helper of its agent's still
// works (its ask waiting), live through Baton's MCP server: the task reports its end with the
// helper named (`backgroundWork`), thread_wait on its thread waits for the helper, and a Stop of
// the parent, or task_cancel, stops the child all the same (its helper interrupted, its ask cancelled).

const { onCleanup } = useBatons();
const folder = (prefix: string) => {
  const t = tempDir(prefix);
  onCleanup(t.cleanup);
  return t.dir;
};

const HELPER = 'BACKGROUND HELPER';
const firstUserText = (request: MessagesRequest): string => {
  const first = request.body.messages.find((m) => m.role === 'user');
  return !first ? '' : typeof first.content === 'string' ? first.content : JSON.stringify(first.content);
};

/** The child starts a helper in the background and ends its turn; the helper asks to run a command. */
const childModel = (request: MessagesRequest): MessagesTurn => {
  if (firstUserText(request).includes(HELPER))
    return { kind: 'tool_use', name: 'Bash', id: 'toolu_helper_cmd', input: { command: 'touch helper.txt' } };
  const last = JSON.stringify(request.body.messages.at(-1)?.content ?? '');
  if (last.includes('tool_result')) return { kind: 'text', text: 'A helper is on it.' };
  if (!last.includes('start a helper')) return { kind: 'text', text: 'ok' };
  return {
    kind: 'tool_use',
    name: 'Agent',
    id: 'toolu_child_agent',
    input: { description: 'Help', prompt: `${HELPER}: touch helper.txt`, run_in_background: true },
  };
};

async function delegated() {
  const app: BatonApp = await startBaton(
    loadConfig({}, { dataDir: folder('baton-app-'), port: 0, token: 'test-token-0123456789', model: 'scripted' }),
    pino({ level: 'silent' }),
    { claudeResponder: childModel },
  );
  onCleanup(async () => {
    await app.stop();
    expect(claudeAgents()).toEqual([]);
  });
  const p = app.runtime.store.projections;
  const created = await app.runtime.dispatch({
    type: 'thread.create',
    commandId: 'cmd_parent',
    cwd: folder('baton-bg-ws-'),
    title: 'Parent',
  });
  const parentId = (created as unknown as { result: { threadId: string } }).result.threadId;
  const client = await mcpClient(app, onCleanup);
  const task = await ok(client, 'delegate_task', {
    parentThreadId: parentId,
    task: 'start a helper',
    provider: 'claude',
    wake: false,
  });
  const taskId = task.taskId as string;
  const helper = () => p.list('graph_nodes', taskId).find((n) => n.kind === 'subagent');
  const ask = () => p.list('requests', taskId)[0];
  // The child's run ends while its helper works on, its ask waiting.
  await untilCommitted(
    app,
    () => p.get('runs', task.runId)?.status === 'completed' && ask()?.status === 'pending',
    'the child run to end with its helper asking',
  );
  expect(helper()).toMatchObject({ status: 'running', detail: { background: true } });
  const status = await ok(client, 'task_status', { taskId });
  expect(status).toMatchObject({
    done: true,
    status: 'completed',
    result: 'A helper is on it.',
    backgroundWork: { subagents: 1, requests: 1, ownTurns: 0 },
  });
  // A wake-up told now would say the helper still works.
  const row = p.get('delegated_tasks', taskId)!;
  expect(wakeText({ store: app.runtime.store, maxChars: 40_000 }, row, 'completed')).toContain(BACKGROUND_NOTE);
  const waited = await ok(client, 'thread_wait', { threadId: taskId, timeoutMs: 300 });
  expect(waited).toMatchObject({ done: false, timedOut: true, backgroundWork: { subagents: 1, requests: 1 } });
  return { app, p, client, parentId, taskId, helper, ask };
}

describe('a delegated Claude child whose helper outlives its run', () => {
  it(
    'is stopped by the Stop cascade of its parent: its helper ends interrupted, its ask cancelled',
    { timeout: 120_000 },
    async () => {
      const { app, p, parentId, taskId, helper, ask } = await delegated();
      await app.runtime.dispatch({ type: 'thread.stop', commandId: 'cmd_stop_parent', threadId: parentId });
      await untilCommitted(app, () => helper()?.status === 'interrupted', 'the helper to be interrupted');
      expect(ask()?.status).toBe('cancelled');
      expect(p.get('threads', taskId)?.queueHeld).toBe(true);
      // Nothing of the agent's follows the Stop: no turn of its own.
      expect(p.list('runs', taskId)).toHaveLength(1);
    },
  );

  it('is stopped by task_cancel: cancelled, its helper interrupted', { timeout: 120_000 }, async () => {
    const { app, client, taskId, helper, ask } = await delegated();
    const cancelled = await ok(client, 'task_cancel', { taskId });
    expect(cancelled).toMatchObject({ cancelled: true, stopped: true });
    await untilCommitted(app, () => helper()?.status === 'interrupted', 'the helper to be interrupted');
    expect(ask()?.status).toBe('cancelled');
    const after = await ok(client, 'task_status', { taskId });
    expect(after.backgroundWork).toBeUndefined();
    const row = app.runtime.store.projections.get('delegated_tasks', taskId)!;
    expect(wakeText({ store: app.runtime.store, maxChars: 40_000 }, row, 'completed')).not.toContain('background:');
  });
});
