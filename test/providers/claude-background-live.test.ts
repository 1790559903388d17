import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessagesRequest, MessagesTurn } from '../../src/providers/model/scripted-messages-server.js';
import { useLiveClaude, type LiveClaudeRun } from '../support/live-claude.js';
import { until } from '../support/poll.js';

/**
 * Background subagents through Baton, live (the real agent, background tasks on; a scripted
 * model that tells the parent's requests from the helper's by the helper's prompt). The
 * parent's run ends while its helper works; the helper's asks stay the user's to answer; its
 * notification's turn, which the agent runs of its own, is a run with `origin: agent_turn`. A
 * Stop ends the helper (interrupted), its asks and its command.
 */
const claude = useLiveClaude();

const HELPER = 'BACKGROUND TASK';
const SLOW = 'A slow reply, streamed word by word while the helper ends.';
/** The first user text of a request: the helper's starts with the prompt its parent gave it. */
const firstUserText = (request: MessagesRequest): string => {
  const first = request.body.messages.find((m) => m.role === 'user');
  if (!first) return '';
  return typeof first.content === 'string' ? first.content : JSON.stringify(first.content);
};

/** The text of a request's last message. */
const lastText = (request: MessagesRequest): string => JSON.stringify(request.body.messages.at(-1)?.content ?? '');

/**
 * Each message of the user's starts a helper in the background (the parent says so and ends its
 * turn); each helper plays `helper`; the parent's own turn after a helper's notification says `ownReply`.
 */
async function start(helper: MessagesTurn[], ownReply = 'The helper wrote bg.txt.') {
  let spawned = 0;
  const played = new Map<string, number>();
  const responder = (request: MessagesRequest): MessagesTurn => {
    const which = new RegExp(`${HELPER} \\d+`).exec(firstUserText(request))?.[0];
    if (which) {
      const step = played.get(which) ?? 0;
      played.set(which, step + 1);
      return helper[step] ?? { kind: 'text', text: 'Helper done.' };
    }
    const last = lastText(request);
    if (last.includes('tool_result')) return { kind: 'text', text: 'The helper is on it.' };
    if (last.includes('a slow message')) return { kind: 'text', text: SLOW, delayMs: 150 };
    if (!last.includes('start a helper') && !last.includes('start another helper'))
      return { kind: 'text', text: ownReply };
    spawned += 1;
    return {
      kind: 'tool_use',
      name: 'Agent',
      id: `toolu_bg_agent${spawned}`,
      input: {
        description: 'Write in the background',
        prompt: `${HELPER} ${spawned}: write bg.txt`,
        subagent_type: 'general-purpose',
        run_in_background: true,
      },
    };
  };
  const live = await claude.setup({ responder, checkpoints: true });
  const threadId = await live.h.thread({ threadId: 'thr_bg', cwd: live.cwd });
  const runId = await live.h.send(threadId, 'start a helper');
  const p = live.h.store.projections;
  // The parent's run ends while its helper works on.
  await live.h.until(() => p.get('runs', runId)?.status === 'completed');
  const sub = p.list('graph_nodes', threadId).find((n) => n.kind === 'subagent')!;
  expect(sub).toMatchObject({ runId, status: 'running', detail: { background: true, toolUseId: 'toolu_bg_agent1' } });
  return { ...live, threadId, runId, sub, p };
}

type Started = LiveClaudeRun & Awaited<ReturnType<typeof start>>;

/** The helper's next ask (one not among `seen`), pending under its node. */
async function nextAsk({ h, p, threadId, sub }: Started, seen: string[] = []) {
  const next = () => p.list('requests', threadId).find((r) => !seen.includes(r.id));
  await h.until(() => next() !== undefined);
  const request = next()!;
  expect(request).toMatchObject({ status: 'pending', kind: 'command' });
  let id: string | null = request.nodeId;
  while (id && id !== sub.id) id = p.get('graph_nodes', id)?.parentNodeId ?? null;
  expect(id).toBe(sub.id);
  return request;
}

const sleepers = (marker: string): string[] =>
  spawnSync('pgrep', ['-f', marker], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => l.trim());

describe('Claude background subagents through Baton, live', () => {
  it(
    "outlive their run: the helper's asks after the run ended are answered, it writes its file and ends, and the agent's own turn after it is a run with origin agent_turn",
    { timeout: 90_000 },
    async () => {
      const bg = await start([
        { kind: 'tool_use', name: 'Bash', id: 'toolu_bg_look', input: { command: 'ls' } },
        {
          kind: 'tool_use',
          name: 'Bash',
          id: 'toolu_bg_write',
          input: { command: "printf 'from the helper\\n' > bg.txt" },
        },
        { kind: 'text', text: 'Background work done.' },
      ]);
      const { h, p, threadId, runId, sub, cwd, model } = bg;
      // Its first ask is not the run's: the run ended with it pending, and it and its command stay open.
      const first = await nextAsk(bg);
      expect(first.runId).toBe(runId);
      expect(p.get('runs', runId)?.status).toBe('completed');
      expect(p.get('graph_nodes', first.nodeId!)?.status).toBe('waiting');
      expect(p.get('graph_nodes', p.get('graph_nodes', first.nodeId!)!.parentNodeId!)?.status).toBe('running');
      expect(
        await h.command({ type: 'runtime-request.respond', requestId: first.id, decision: 'accept' }),
      ).toMatchObject({
        ok: true,
      });
      // The second is asked after the run ended; the answer reaches the agent, which writes the file.
      const second = await nextAsk(bg, [first.id]);
      expect(second.details).toMatchObject({ toolUseId: 'toolu_bg_write' });
      expect(
        await h.command({ type: 'runtime-request.respond', requestId: second.id, decision: 'accept' }),
      ).toMatchObject({ ok: true });
      await h.until(() => p.get('graph_nodes', sub.id)?.status === 'completed');
      expect(readFileSync(join(cwd, 'bg.txt'), 'utf8')).toBe('from the helper\n');
      expect(p.list('requests', threadId).map((r) => r.status)).toEqual(['resolved', 'resolved']);
      expect(p.get('turn_items', sub.id)?.text).toBe('Background work done.');

      // The agent's own turn after the notification: a run of the thread, with its origin and its reply.
      await h.until(() => p.list('runs', threadId).some((r) => r.id !== runId && r.status === 'completed'));
      const own = p.list('runs', threadId).find((r) => r.id !== runId)!;
      expect(own).toMatchObject({
        ordinal: 2,
        origin: { kind: 'agent_turn', reason: 'subagent_notification', nodeId: sub.id },
      });
      const messages = p.list('messages', threadId);
      expect(messages.filter((m) => m.runId === own.id).map((m) => [m.role, m.text])).toEqual([
        ['user', 'The background subagent "Write in the background" completed: Background work done.'],
        ['assistant', 'The helper wrote bg.txt.'],
      ]);
      expect(messages.filter((m) => m.runId === runId && m.role === 'assistant').map((m) => m.text)).toEqual([
        'The helper is on it.',
      ]);
      // The helper's own checkpoint scope, captured when it ended, holding its file.
      await h.until(() => p.list('checkpoints', threadId).some((c) => c.nodeId === sub.id));
      expect(p.list('checkpoints', threadId).find((c) => c.nodeId === sub.id)).toMatchObject({
        scopeKind: 'subagent',
        runId,
        status: 'ready',
        diff: { files: 1 },
      });
      // The parent's three requests (its turn, its answer, its own turn) and the helper's three.
      expect(model.messageRequests).toHaveLength(6);
      expect(p.list('runs', threadId)).toHaveLength(2);
    },
  );

  it(
    "a Stop ends a helper whose command runs: its node and command end interrupted, the command's process is gone, and no turn of the agent's own follows",
    { timeout: 90_000 },
    async () => {
      const marker = `timeout 4${process.pid % 10}7 tail -f /dev/null`;
      const bg = await start([
        {
          kind: 'tool_use',
          name: 'Bash',
          id: 'toolu_bg_sleep',
          input: { command: `${marker} && printf late > late.txt` },
        },
        { kind: 'text', text: 'Never said.' },
      ]);
      const { h, p, threadId, runId, sub, cwd } = bg;
      const ask = await nextAsk(bg);
      // A background helper keeps its agent: the idle reaper leaves it.
      expect(claude.providers[0]!.reapIdle()).toBe(0);
      await h.command({ type: 'runtime-request.respond', requestId: ask.id, decision: 'accept' });
      await h.until(() => p.get('requests', ask.id)?.status === 'resolved');
      await until(() => sleepers(marker).length > 0, 'the helper command runs');

      expect(await h.command({ type: 'thread.stop', threadId })).toMatchObject({ ok: true });
      await h.until(() => p.get('graph_nodes', sub.id)?.status === 'interrupted');
      const command = p.list('graph_nodes', threadId).find((n) => n.kind === 'tool_call' && n.parentNodeId === sub.id);
      expect(command?.status).toBe('interrupted');
      await until(() => sleepers(marker).length === 0, "the helper command's process to end");
      expect(existsSync(join(cwd, 'late.txt'))).toBe(false);
      // No turn of the agent's own follows the stopped helper.
      await h.until(() => p.list('checkpoints', threadId).some((c) => c.nodeId === sub.id));
      expect(p.list('runs', threadId).map((r) => r.id)).toEqual([runId]);
      expect(p.get('threads', threadId)?.queueHeld).toBe(true);
    },
  );

  it(
    "a Stop while the helper's ask waits cancels the ask and ends the helper interrupted; so does the end of its agent's session",
    { timeout: 90_000 },
    async () => {
      const helper: MessagesTurn[] = [
        { kind: 'tool_use', name: 'Bash', id: 'toolu_bg_write', input: { command: "printf 'x\\n' > bg.txt" } },
      ];
      const bg = await start(helper);
      const { h, p, threadId, runId, sub } = bg;
      const ask = await nextAsk(bg);
      expect(await h.command({ type: 'thread.stop', threadId })).toMatchObject({ ok: true });
      await h.until(
        () =>
          p.get('requests', ask.id)?.status === 'cancelled' && p.get('graph_nodes', sub.id)?.status === 'interrupted',
      );
      expect(await h.command({ type: 'runtime-request.respond', requestId: ask.id, decision: 'accept' })).toMatchObject(
        { ok: false },
      );
      expect(p.list('runs', threadId).map((r) => r.id)).toEqual([runId]);

      // The next message releases the stop and starts another helper; its agent's session then ends.
      const again = await h.send(threadId, 'start another helper');
      await h.until(() => p.get('runs', again)?.status === 'completed');
      const second = p.list('graph_nodes', threadId).find((n) => n.kind === 'subagent' && n.runId === again)!;
      const waiting = await nextAsk({ ...bg, sub: second }, [ask.id]);
      await claude.providers[0]!.adapter(threadId).stop();
      await h.until(
        () =>
          p.get('requests', waiting.id)?.status === 'cancelled' &&
          p.get('graph_nodes', second.id)?.status === 'interrupted',
      );
      expect(p.list('runs', threadId).map((r) => r.id)).toEqual([runId, again]);
    },
  );

  it(
    'a Baton restart while a helper works ends it interrupted, with what lies under it, and its ask not resumable',
    { timeout: 90_000 },
    async () => {
      const bg = await start([
        { kind: 'tool_use', name: 'Bash', id: 'toolu_bg_write', input: { command: "printf 'x\\n' > bg.txt" } },
      ]);
      const ask = await nextAsk(bg);
      const h2 = await claude.restart(bg.h);
      const p = h2.store.projections;
      expect(p.get('graph_nodes', bg.sub.id)?.status).toBe('interrupted');
      const command = p.list('graph_nodes', bg.threadId).find((n) => n.parentNodeId === bg.sub.id)!;
      expect(command.status).toBe('interrupted');
      expect(p.get('requests', ask.id)).toMatchObject({
        status: 'cancelled',
        responseCapability: { type: 'not_resumable' },
      });
    },
  );

  it(
    "a helper that ends while another run streams: the agent's own turn comes after that run, as a run of its own; nothing of either is the other's",
    { timeout: 90_000 },
    async () => {
      const bg = await start([
        { kind: 'tool_use', name: 'Bash', id: 'toolu_bg_write', input: { command: "printf 'x\\n' > bg.txt" } },
        { kind: 'text', text: 'Background work done.' },
      ]);
      const { h, p, threadId, runId, sub } = bg;
      const ask = await nextAsk(bg);
      const slow = await h.send(threadId, 'a slow message');
      await h.until(() => p.list('messages', threadId).some((m) => m.runId === slow && m.role === 'assistant'));
      await h.command({ type: 'runtime-request.respond', requestId: ask.id, decision: 'accept' });
      await h.until(() => p.get('graph_nodes', sub.id)?.status === 'completed');
      await h.until(() => p.list('runs', threadId).filter((r) => r.status === 'completed').length === 3);
      const runs = p.list('runs', threadId).sort((a, b) => (a.ordinal ?? 0) - (b.ordinal ?? 0));
      expect(
        runs.map((r) => [r.id === runId || r.id === slow ? r.id : 'own', r.ordinal, r.origin?.kind ?? null]),
      ).toEqual([
        [runId, 1, null],
        [slow, 2, null],
        ['own', 3, 'agent_turn'],
      ]);
      const said = (id: string) =>
        p
          .list('messages', threadId)
          .filter((m) => m.runId === id && m.role === 'assistant')
          .map((m) => m.text);
      expect(said(slow)).toEqual([SLOW]);
      expect(said(runs[2]!.id)).toEqual(['The helper wrote bg.txt.']);
    },
  );
});
