import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessagesRequest, MessagesTurn } from '../../src/providers/model/scripted-messages-server.js';
import { useLiveClaude } from '../support/live-claude.js';

/**
 * A subagent the model asks to run in the background, through Baton, live (the real agent, a
 * scripted model that tells the parent's requests from the subagent's by the subagent's
 * prompt). Baton turns the agent's background tasks off (claude-environment.ts), so it runs
 * in the foreground: its approval is answerable like any other, its node ends before the run
 * does, with its own checkpoint scope, and nothing of it goes on after the run.
 */
const claude = useLiveClaude();

/** The first user text of a request: a subagent's starts with the prompt its parent gave it. */
const firstUserText = (request: MessagesRequest): string => {
  const first = request.body.messages.find((m) => m.role === 'user');
  if (!first) return '';
  return typeof first.content === 'string' ? first.content : JSON.stringify(first.content);
};

describe('a Claude subagent asked to run in the background, through Baton, live', () => {
  it(
    'runs in the foreground: its approval is answered, its node ends with its own checkpoint scope, then the run ends',
    { timeout: 60_000 },
    async () => {
      let parent = 0;
      let child = 0;
      const responder = (request: MessagesRequest): MessagesTurn => {
        if (firstUserText(request).includes('BACKGROUND TASK')) {
          child += 1;
          return child === 1
            ? {
                kind: 'tool_use',
                name: 'Bash',
                id: 'toolu_bg_write',
                input: { command: "printf 'from the helper\\n' > bg.txt" },
              }
            : { kind: 'text', text: 'Background work done.' };
        }
        parent += 1;
        return parent === 1
          ? {
              kind: 'tool_use',
              name: 'Agent',
              id: 'toolu_bg_agent',
              input: {
                description: 'Write in the background',
                prompt: 'BACKGROUND TASK: write bg.txt',
                subagent_type: 'general-purpose',
                run_in_background: true,
              },
            }
          : { kind: 'text', text: 'The helper finished.' };
      };
      const { h, cwd, model } = await claude.setup({ responder, checkpoints: true });
      const threadId = await h.thread({ threadId: 'thr_bg_subagent', cwd });
      const sent = (await h.command({ type: 'thread.message.send', threadId, text: 'start a helper' })) as {
        ok: boolean;
        result: { runId: string };
      };
      expect(sent.ok).toBe(true);
      const runId = sent.result.runId;
      const p = h.store.projections;

      // The subagent's command asks (a workspace-write thread): the run waits on it, the subagent runs.
      await h.until(() => p.list('requests', threadId).some((r) => r.status === 'pending'));
      const sub = p.list('graph_nodes', threadId).find((n) => n.kind === 'subagent')!;
      const run = p.get('runs', runId)!;
      expect(sub).toMatchObject({ runId, parentNodeId: run.rootNodeId, status: 'running' });
      expect(sub.detail).toMatchObject({ background: false, toolUseId: 'toolu_bg_agent' });
      expect(run.status).toBe('waiting');
      const request = p.list('requests', threadId).find((r) => r.status === 'pending')!;
      expect(
        await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' }),
      ).toMatchObject({ ok: true });

      await h.until(() => p.get('runs', runId)?.status === 'completed');
      expect(p.get('graph_nodes', sub.id)?.status).toBe('completed');
      expect(readFileSync(join(cwd, 'bg.txt'), 'utf8')).toBe('from the helper\n');
      expect(p.get('turn_items', sub.id)?.text).toBe('Background work done.');
      expect(
        p
          .list('messages', threadId)
          .filter((m) => m.role === 'assistant')
          .map((m) => m.text),
      ).toEqual(['The helper finished.']);
      // Its own checkpoint scope, captured when it ended, holding its file.
      await h.until(() => p.list('checkpoints', threadId).some((c) => c.nodeId === sub.id));
      const scope = p.list('checkpoints', threadId).find((c) => c.nodeId === sub.id)!;
      expect(scope).toMatchObject({ scopeKind: 'subagent', runId, status: 'ready', diff: { files: 1 } });
      // The parent's two requests and the subagent's two: no turn of the agent's own after it.
      expect(model.messageRequests).toHaveLength(4);
      expect(p.list('runs', threadId)).toHaveLength(1);
    },
  );
});
