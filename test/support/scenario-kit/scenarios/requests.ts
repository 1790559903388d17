import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../../runtime.js';
import { check, type ProviderScenario } from '../scenario.js';
import { send, status, assistantTexts } from '../baton.js';

/** Sends a message whose command asks first, and answers the ask with `decision`. */
async function answerTheAsk(
  h: Harness,
  threadId: string,
  decision: 'decline' | 'cancel',
): Promise<{ runId: string; request: { id: string } }> {
  const runId = await send(h, threadId, 'try it');
  await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
  const request = h.store.projections.list('requests', threadId)[0]!;
  check(
    (await h.command({ type: 'runtime-request.respond', requestId: request.id, decision })).ok,
    `the ask answered ${decision}`,
  );
  return { runId, request };
}

/** Runtime requests: command and file-change approvals, structured questions. */
export const requestScenarios: ProviderScenario[] = [
  {
    name: 'approval_request',
    needs: ['approvals.supportsCommandApproval'],
    model: [
      { kind: 'command', command: 'echo approved > proof.txt', needsApproval: true, callId: 'call_approval' },
      { kind: 'text', text: 'Done.' },
    ],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_approval', cwd });
      const runId = await send(h, threadId, 'write the proof');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      check(status(h, runId) === 'waiting', 'the run waits on the approval');
      const request = h.store.projections.list('requests', threadId)[0]!;
      const ack = await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' });
      check(
        ack.ok && (ack as { result: { status: string } }).result.status === 'answering',
        `accepted, answering until the provider takes it: ${JSON.stringify(ack)}`,
      );
      await h.until(() => status(h, runId) === 'completed');
      check(h.store.projections.get('requests', request.id)!.status === 'resolved', 'request resolved');
      const sessionStatuses = h.store.events
        .readThreadAfter(threadId, 0)
        .filter((e) => e.type === 'provider-session.changed')
        .map((e) => e.payload.session.status);
      check(
        (['running', 'waiting', 'ready'] as const).every((x) => sessionStatuses.includes(x)),
        `the session went running, waiting, ready: ${sessionStatuses}`,
      );
      const approvals = h.store.projections
        .list('activities', threadId)
        .filter((a) => a.nodeId === request.nodeId)
        .map((a) => `${a.kind}:${a.status}:${a.runId === runId}`);
      check(
        JSON.stringify(approvals) ===
          JSON.stringify(['approval.requested:pending:true', 'approval.resolved:accept:true']),
        `approval activities keyed by run and node, got ${approvals}`,
      );
    },
  },
  {
    name: 'approval_decline',
    needs: ['approvals.supportsCommandApproval', 'approvals.declineContinuesTurn'],
    model: [
      { kind: 'command', command: 'echo nope > declined.txt', needsApproval: true, callId: 'call_decline' },
      { kind: 'text', text: 'Understood.' },
    ],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_decline', cwd });
      const { runId } = await answerTheAsk(h, threadId, 'decline');
      await h.until(() => status(h, runId) === 'completed');
      check(!existsSync(join(cwd, 'declined.txt')), 'the declined command did not run');
    },
  },
  {
    // The fallback where a decline ends the agent's turn (codex-acp): the command does not run, the run ends interrupted, the thread goes on.
    name: 'approval_decline_ends_turn',
    needs: ['approvals.supportsCommandApproval'],
    unless: ['approvals.declineContinuesTurn'],
    model: [
      { kind: 'command', command: 'echo nope > declined.txt', needsApproval: true, callId: 'call_decline_end' },
      { kind: 'text', text: 'Next turn.' },
    ],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_decline_end', cwd });
      const { runId, request } = await answerTheAsk(h, threadId, 'decline');
      await h.until(() => status(h, runId) === 'interrupted');
      check(!existsSync(join(cwd, 'declined.txt')), 'the declined command did not run');
      check(h.store.projections.get('requests', request.id)!.status === 'resolved', 'the request resolved');
      const next = await send(h, threadId, 'carry on');
      await h.until(() => status(h, next) === 'completed');
      check(assistantTexts(h, threadId).at(-1) === 'Next turn.', 'the thread answers the next message');
    },
  },
  {
    name: 'approval_cancel',
    needs: ['approvals.supportsCommandApproval'],
    model: [
      { kind: 'command', command: 'echo nope > cancelled.txt', needsApproval: true, callId: 'call_cancel' },
      { kind: 'text', text: 'Cancelled.' },
    ],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_cancel', cwd });
      const { runId } = await answerTheAsk(h, threadId, 'cancel');
      await h.until(() => ['completed', 'interrupted', 'failed'].includes(status(h, runId) ?? ''));
      check(!existsSync(join(cwd, 'cancelled.txt')), 'the cancelled command did not run');
    },
  },
  {
    name: 'user_input_request',
    needs: ['planning.supportsStructuredQuestions'],
    model: [
      {
        kind: 'questions',
        questions: [
          {
            id: 'lang',
            header: 'Language',
            question: 'Which language should I use?',
            options: [
              { label: 'TypeScript', description: 'typed' },
              { label: 'Rust', description: 'fast' },
            ],
          },
        ],
      },
      { kind: 'text', text: 'TypeScript it is.' },
    ],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_questions', cwd, interactionMode: 'plan' });
      const runId = await send(h, threadId, 'plan the work');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const request = h.store.projections.list('requests', threadId)[0]!;
      check(
        request.kind === 'user_input' && request.prompt === 'Which language should I use?',
        `a question, got ${JSON.stringify(request)}`,
      );
      const asked = h.store.projections.list('plans', threadId).filter((p) => p.kind === 'questions');
      check(
        asked.length === 1 && asked[0]!.nodeId === request.nodeId && asked[0]!.runId === runId,
        `a questions artifact on the request's node, got ${JSON.stringify(asked)}`,
      );
      check(
        // The question's id is the provider's: Codex keeps the model's ('lang'), Claude's questions have none (their text is it).
        JSON.stringify(asked[0]!.questions) ===
          JSON.stringify([
            {
              id: asked[0]!.questions?.[0]?.id,
              header: 'Language',
              question: 'Which language should I use?',
              options: [
                { label: 'TypeScript', description: 'typed' },
                { label: 'Rust', description: 'fast' },
              ],
              // Both agents take an answer of one's own ("Other") and neither asks for a secret.
              isOther: true,
              isSecret: false,
            },
          ]),
        `its questions, got ${JSON.stringify(asked[0]!.questions)}`,
      );
      check(status(h, runId) === 'waiting', 'the run waits for the answer');
      check(
        (
          await h.command({
            type: 'runtime-request.respond',
            requestId: request.id,
            answers: { [asked[0]!.questions?.[0]?.id ?? '']: 'TypeScript' },
          })
        ).ok,
        'answered',
      );
      await h.until(() => status(h, runId) === 'completed');
      check(assistantTexts(h, threadId).at(-1) === 'TypeScript it is.', 'the answer reached the model');
      const kinds = h.store.projections
        .list('activities', threadId)
        .filter((a) => a.nodeId === request.nodeId)
        .map((a) => a.kind);
      check(
        JSON.stringify(kinds) === JSON.stringify(['user_input.requested', 'user_input.resolved']),
        `question activities, got ${kinds}`,
      );
    },
  },
  {
    name: 'file_change_approval',
    needs: ['approvals.supportsFileChangeApproval', 'approvals.supportsApplyPatchApproval'],
    model: [
      { kind: 'add_file', path: 'approved.md', content: 'approved\n', callId: 'call_patch_ro' },
      { kind: 'text', text: 'Written.' },
    ],
    async drive({ h, cwd, live }) {
      // Read-only: the agent asks before it applies a patch.
      const threadId = await h.thread({ threadId: 'thr_patch_ro', cwd, runtimeMode: 'read_only' });
      const runId = await send(h, threadId, 'add a file');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const request = h.store.projections.list('requests', threadId)[0]!;
      check(request.kind === 'file_change', `a file-change approval, got ${request.kind}`);
      const tool = h.store.projections
        .list('graph_nodes', threadId)
        .find((n) => n.kind === 'tool_call' && n.title === 'apply_patch');
      check(
        tool && h.store.projections.get('graph_nodes', request.nodeId)?.parentNodeId === tool.id,
        'the approval hangs under its apply_patch node',
      );
      check(
        (await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' })).ok,
        'approved',
      );
      await h.until(() => status(h, runId) === 'completed');
      if (live)
        check(readFileSync(join(cwd, 'approved.md'), 'utf8') === 'approved\n', 'the approved patch was applied');
      check(h.store.projections.get('graph_nodes', tool.id)!.status === 'completed', 'the patch node completed');
    },
  },
];
