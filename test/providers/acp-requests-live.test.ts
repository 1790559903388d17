import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessagesRequest } from '../../src/providers/model/scripted-messages-server.js';
import { useLiveAcp } from '../support/live-acp.js';
import type { Harness } from '../support/runtime.js';

/** Approval round trips through `session/request_permission`, on both built-in agents. */
const acp = useLiveAcp();

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;
const requests = (h: Harness, threadId: string) => h.store.projections.list('requests', threadId);

/** The tool claude-agent-acp offers for writing a file (its own ACP-backed one where it has it). */
const writeTool = (request: MessagesRequest): string => {
  const names = (request.body.tools ?? []).map((t) => t.name);
  return names.find((n) => n === 'mcp__acp__Write') ?? 'Write';
};

describe('ACP approvals, live', () => {
  for (const [decision, expected] of [
    ['accept', 'written by claude'],
    ['decline', null],
  ] as const) {
    it(
      `claude-agent-acp: ${decision} on a file write ${expected ? 'writes the file' : 'leaves none'}`,
      { timeout: 60_000 },
      async () => {
        const file = () => join(cwd, 'note.txt');
        let cwd = '';
        const { h, cwd: ws } = await acp.setup({
          claude: (request, index) =>
            index === 0
              ? {
                  kind: 'tool_use',
                  name: writeTool(request),
                  id: 'toolu_write01',
                  input: { file_path: file(), content: 'written by claude' },
                }
              : { kind: 'text', text: 'Done.' },
        });
        cwd = ws;
        const threadId = await h.thread({
          threadId: 'thr_acp_write',
          cwd,
          provider: 'acp',
          acpAgent: 'claude-agent-acp',
          // Read-only: a file write asks (workspace-write is acceptEdits, which writes inside cwd unasked).
          runtimeMode: 'read_only',
        });
        const run = await h.send(threadId, 'write the note');
        await h.until(() => requests(h, threadId).some((r) => r.status === 'pending'));
        const asked = requests(h, threadId)[0]!;
        expect(asked.kind).toBe('file_change');
        await h.command({ type: 'runtime-request.respond', requestId: asked.id, decision });
        await h.until(() => status(h, run) === 'completed');
        expect(existsSync(file()) ? readFileSync(file(), 'utf8') : null).toBe(expected);
        expect(h.store.projections.list('messages', threadId).at(-1)?.text).toBe('Done.');
      },
    );
  }

  // codex-acp 0.16.0 offers `approved` (allow_once), `approved-execpolicy-amendment` (allow_always) and
  // `abort` (reject_once, "No, and tell Codex what to do differently"): abort ends the prompt `cancelled`
  // (measured: the model is not asked again), so a decline ends the run interrupted, with nothing run.
  for (const [decision, made, end, modelRequests] of [
    ['accept', true, 'completed', 2],
    ['decline', false, 'interrupted', 1],
  ] as const) {
    it(
      `codex-acp: ${decision} on an escalated command ${made ? 'runs it' : 'does not'}`,
      { timeout: 60_000 },
      async () => {
        const { h, cwd, responses } = await acp.setup();
        responses.enqueue(
          { kind: 'exec', command: 'echo made > made.txt', escalated: true, justification: 'make a file' },
          { kind: 'text', text: 'Finished.' },
        );
        const threadId = await h.thread({ threadId: 'thr_acp_exec', cwd, provider: 'acp', acpAgent: 'codex-acp' });
        const run = await h.send(threadId, 'make a file');
        await h.until(() => requests(h, threadId).some((r) => r.status === 'pending'));
        const asked = requests(h, threadId)[0]!;
        expect(asked.kind).toBe('command');
        expect(asked.details.options).toHaveLength(3);
        await h.command({ type: 'runtime-request.respond', requestId: asked.id, decision });
        await h.until(() => h.ended(run));
        expect(status(h, run)).toBe(end);
        expect(existsSync(join(cwd, 'made.txt'))).toBe(made);
        expect(responses.requests).toHaveLength(modelRequests);
      },
    );
  }
});
