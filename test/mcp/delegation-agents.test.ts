import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import { loadConfig } from '../../src/config.js';
import type { MessagesRequest, MessagesTurn } from '../../src/providers/model/scripted-messages-server.js';
import { useBatons } from '../support/baton-app.js';
import { tempDir } from '../support/temp.js';
import { approveAll, mcpClient, ok, untilCommitted } from './mcp-support.js';

// Claude and claude-agent-acp get Baton's MCP server too, each session with a credential of
// its own (the SDK's mcpServers; ACP's session/new http server): their model delegates.

const { onCleanup } = useBatons();

const folder = (prefix: string) => {
  const t = tempDir(prefix);
  onCleanup(t.cleanup);
  return t.dir;
};

type Block = { type: string; content?: unknown; text?: string };

/** The tool results in the last message of a Messages request (what the agent's tool answered the model). */
function toolResults(request: MessagesRequest): string {
  const last = request.body.messages.at(-1);
  const content = Array.isArray(last?.content) ? (last.content as Block[]) : [];
  return JSON.stringify(content.filter((b) => b.type === 'tool_result'));
}

/**
 * The Claude model: Claude Code defers MCP tools, so it loads delegate_task with ToolSearch,
 * then delegates the task to Codex; given the tool's answer, it says so. Anything else (side
 * requests) gets a plain answer.
 */
function delegatingModel(results: string[]) {
  return (request: MessagesRequest): MessagesTurn => {
    const tools = (request.body.tools ?? []).map((t) => (t as { name?: string }).name);
    const answered = toolResults(request);
    // Baton wakes the parent with the task's end (its agent never read it): the wake's message.
    const last = JSON.stringify(request.body.messages.at(-1) ?? null);
    if (last.includes('taskId: ') && last.includes('status: completed')) return { kind: 'text', text: 'Woken.' };
    if (answered.includes('toolu_delegate')) return (results.push(answered), { kind: 'text', text: 'Delegated.' });
    if (tools.includes('mcp__baton__delegate_task'))
      return {
        kind: 'tool_use',
        id: 'toolu_delegate',
        name: 'mcp__baton__delegate_task',
        input: { task: 'Echo this, Codex.', provider: 'codex', clientRequestId: 'from-claude' },
      };
    if (JSON.stringify(request.body).includes('mcp__baton__delegate_task'))
      return {
        kind: 'tool_use',
        id: 'toolu_search',
        name: 'ToolSearch',
        input: { query: 'select:mcp__baton__delegate_task' },
      };
    return { kind: 'text', text: 'ok' };
  };
}

async function claudeBaton(results: string[]): Promise<BatonApp> {
  const data = folder('baton-app-');
  const app = await startBaton(
    loadConfig({}, { dataDir: data, port: 0, token: 'test-token-0123456789', model: 'scripted' }),
    pino({ level: 'silent' }),
    { claudeResponder: delegatingModel(results) },
  );
  onCleanup(() => app.stop());
  return app;
}

describe('delegation from Claude and ACP agents', () => {
  it.each([
    { name: 'Claude', thread: { provider: 'claude' } },
    { name: 'claude-agent-acp', thread: { provider: 'acp', acpAgent: 'claude-agent-acp' } },
  ])(
    'a $name thread delegates to Codex through its session’s credential',
    async ({ thread }) => {
      const results: string[] = [];
      const app = await claudeBaton(results);
      approveAll(app, onCleanup);
      const client = await mcpClient(app, onCleanup);
      const started = await ok(client, 'thread_start', {
        cwd: folder('baton-delegate-ws-'),
        text: 'delegate',
        ...thread,
      });
      const runStatus = (runId: string) => app.runtime.store.projections.get('runs', runId)?.status;
      await untilCommitted(app, () => runStatus(started.runId) === 'completed', 'the parent run to complete', 90_000);
      expect(results).toHaveLength(1);
      const taskId = /\\"taskId\\":\\"([^\\"]+)\\"/.exec(results[0]!)?.[1];
      expect(taskId).toMatch(/^thr_/);
      const child = app.runtime.store.projections.get('threads', taskId!);
      expect(child).toMatchObject({
        provider: 'codex',
        lineage: { parentThreadId: started.threadId, relationshipToParent: 'subagent' },
      });
      const waited = await ok(client, 'thread_wait', { threadId: taskId, timeoutMs: 60_000 });
      expect(waited).toMatchObject({ done: true, run: { status: 'completed' } });
      expect(waited.lastAssistantMessage).toContain('Echo this, Codex.');
      const node = app.runtime.store.projections
        .list('graph_nodes', started.threadId)
        .find((n) => n.kind === 'subagent');
      expect(node).toMatchObject({ runId: started.runId, detail: { taskId } });
      // Its agent never read the end (thread_wait above used Baton's own token): the parent is woken once.
      const wakes = () => app.runtime.store.projections.list('runs', started.threadId).filter((r) => r.origin);
      await untilCommitted(app, () => wakes()[0]?.status === 'completed', 'the wake-up run to complete', 90_000);
      expect(wakes()).toHaveLength(1);
      expect(wakes()[0]!.origin).toMatchObject({ kind: 'task_wake', taskId, status: 'completed' });
    },
    120_000,
  );
});
