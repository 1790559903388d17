import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OFFLINE_COMMAND, OFFLINE_NOTES, offlineTagOf } from '../../src/providers/model/offline-assistant.js';
import { useApiBatons } from '../support/api-batons.js';
import type { ThreadClient } from '../support/thread-client.js';
import type { RunId } from '../../src/domain/ids.js';

/**
 * Baton's main job on its embedded defaults (no model configured): the offline models act
 * on a tag at the start of a line of the user's message, on Codex and on Claude alike, so
 * approvals, file changes and todo lists can be tried without credentials.
 */
const token = 'offline-model-test-token-0123456789';
/** What the agents run as (claude-agent-acp is node and Claude's native binary). */
const api = useApiBatons({ token, prefix: 'baton-offline', agentComms: ['codex', 'claude', 'node', 'codex-acp'] });

/** Each agent as a thread names it. */
const agents = [
  { name: 'codex', thread: { provider: 'codex' } },
  { name: 'claude', thread: { provider: 'claude' } },
  { name: 'claude-agent-acp', thread: { provider: 'acp', acpAgent: 'claude-agent-acp' } },
  { name: 'codex-acp', thread: { provider: 'acp', acpAgent: 'codex-acp' } },
] as const;

/** The run's end, each approval it asks for on the way accepted. */
async function endedApproving(t: ThreadClient, runId: RunId): Promise<string> {
  const answered = new Set<string>();
  for (;;) {
    const next = await t.next<{ ended: string } | { ask: string }>(
      (e) =>
        e.type === 'run.terminal' && e.payload.runId === runId
          ? { ended: String(e.payload.status) }
          : e.type === 'runtime-request.opened' &&
              e.payload.request.runId === runId &&
              !answered.has(e.payload.request.id)
            ? { ask: e.payload.request.id }
            : undefined,
      `run ${runId} to end or ask`,
    );
    if ('ended' in next) return next.ended;
    answered.add(next.ask);
    await t.respond(next.ask, 'accept');
  }
}

describe('the offline models on the embedded defaults', () => {
  it('a tag counts at the start of a line of the message, the last one; a handoff line is not the user asking', () => {
    expect(offlineTagOf('[approve] make a file')).toBe('[approve]');
    expect(offlineTagOf('please\n  [plan] it')).toBe('[plan]');
    expect(offlineTagOf('[edit] one\n[slow] then this')).toBe('[slow]');
    expect(offlineTagOf('say [approve] in the middle')).toBeNull();
    expect(offlineTagOf('[run 1] user: [approve] make a file\n\nhello')).toBeNull();
    expect(offlineTagOf('just words')).toBeNull();
  });

  for (const agent of agents) {
    it(`on ${agent.name}: [approve] asks to run a command, [edit] adds a file, [plan] keeps a todo list, and a plain message is echoed`, async () => {
      const app = await api.baton({});
      const cwd = api.workspace();
      const t = await api.create(app.url, { cwd, ...agent.thread });

      const command = await t.send('[approve] make a file');
      const request = await t.approval(command);
      expect(request.kind).toBe('command');
      await t.respond(request.id, 'accept');
      expect(await t.ended(command)).toBe('completed');
      expect(readFileSync(join(cwd, 'offline-made.txt'), 'utf8')).toBe('made by the offline model\n');
      const commands = t.events.flatMap((e) =>
        e.type === 'node.detail' && e.payload.runId === command ? [e.payload.detail.command] : [],
      );
      // Every agent's node tells the command as the model wrote it (Codex's too, not its login shell).
      expect(commands).toContain(OFFLINE_COMMAND);
      // The model tells what the command returned (the file it made is the workspace's only one).
      expect(JSON.stringify(await t.snapshot())).toContain('Done. It returned: offline-made.txt');

      const edit = await t.send('[edit] write some notes');
      // codex-acp asks to apply its patch; the others write inside the workspace without asking.
      expect(await endedApproving(t, edit)).toBe('completed');
      expect(readFileSync(join(cwd, OFFLINE_NOTES.path), 'utf8')).toBe(OFFLINE_NOTES.content);
      // A file change node (its details merge: the files may come after the tool's kind).
      const details = t.events.flatMap((e) =>
        e.type === 'node.detail' && e.payload.runId === edit ? [e.payload] : [],
      );
      const changed = new Set(details.filter((d) => d.detail.tool === 'file_change').map((d) => d.nodeId));
      const changes = details.filter((d) => changed.has(d.nodeId)).map((d) => d.detail.files);
      expect(JSON.stringify(changes)).toContain(OFFLINE_NOTES.path);

      const plan = await t.send('[plan] plan the work');
      expect(await t.ended(plan)).toBe('completed');
      const todo = t.events.find((e) => e.type === 'plan.updated' && e.payload.plan.runId === plan);
      expect(todo?.type === 'plan.updated' && todo.payload.plan.kind).toBe('todo_list');

      const plain = await t.send('hello there');
      expect(await t.ended(plain)).toBe('completed');
      const snapshot = await t.snapshot();
      expect(JSON.stringify(snapshot)).toContain('(offline scripted model) I received: hello there');
    }, 180_000);
  }
});

describe('[ask] on the offline models', () => {
  it('Codex in plan mode and Claude ask a question; an agent that cannot ask says why', async () => {
    const app = await api.baton({});
    const asks = async (thread: Record<string, unknown>) => {
      const t = await api.create(app.url, { cwd: api.workspace(), ...thread });
      const runId = await t.send('[ask] which language?');
      return { t, runId };
    };
    for (const thread of [{ provider: 'codex', interactionMode: 'plan' }, { provider: 'claude' }]) {
      const { t, runId } = await asks(thread);
      const request = await t.approval(runId);
      expect(request.kind).toBe('user_input');
    }
    for (const [acpAgent, says] of [
      ['claude-agent-acp', 'This agent offers no tool to ask questions with.'],
      ['codex-acp', 'request_user_input is unavailable in Default mode'],
    ] as const) {
      const { t, runId } = await asks({ provider: 'acp', acpAgent });
      expect(await t.ended(runId)).toBe('completed');
      expect(JSON.stringify(await t.snapshot())).toContain(says);
    }
  }, 180_000);
});
