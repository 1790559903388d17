import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../../runtime.js';
import { assistantTexts, send, status } from '../baton.js';
import { check, type ProviderScenario } from '../scenario.js';

/**
 * Subagents: an agent hands work to a helper of its own. The helper is a subagent node under
 * the root turn; its items are under it, its end never ends the run (only the root turn
 * does), and it is a checkpoint scope of its own, captured when it ends.
 */

/** The run's subagent node, checked to be the one child of kind subagent of its root node. */
function subagentOf(h: Harness, threadId: string, runId: string) {
  const run = h.store.projections.get('runs', runId)!;
  const subagents = h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'subagent');
  check(
    subagents.length === 1 && subagents[0]!.runId === runId && subagents[0]!.parentNodeId === run.rootNodeId,
    `one subagent node under the run's root node, got ${JSON.stringify(subagents)}`,
  );
  return subagents[0]!;
}

/**
 * A provider that names its subagents' threads (`subagents.exposesSubagentThreadIds`) makes
 * the child's a provider thread of its own, owned by its node, bound to that native thread,
 * idle once the child's turn has ended.
 */
function checkChildThread(h: Harness, threadId: string, nodeId: string): void {
  const node = h.store.projections.get('graph_nodes', nodeId)!;
  const id = node.providerThreadId;
  check(
    id && node.detail?.['providerThreadId'] === id,
    `the subagent names its provider thread, got ${JSON.stringify(node)}`,
  );
  const row = h.store.entities.get(id);
  const actor = row?.snapshot as
    { value?: unknown; context?: { owner?: unknown; nativeThreadRef?: unknown } } | undefined;
  check(
    row?.kind === 'provider_thread' &&
      actor?.value === 'idle' &&
      JSON.stringify(actor.context?.owner) === JSON.stringify({ type: 'node', nodeId }) &&
      actor.context?.nativeThreadRef === node.detail?.['nativeThreadId'],
    `the child's provider thread is the node's, idle, on its native thread, got ${JSON.stringify(actor)}`,
  );
  check(
    h.store.projections.get('threads', threadId)?.activeProviderThreadId !== id,
    "the thread's own provider thread stays active",
  );
}

/** Whether `nodeId` is `ancestorId` or lies under it. */
function under(h: Harness, nodeId: string | null, ancestorId: string): boolean {
  for (let id = nodeId; id; id = h.store.projections.get('graph_nodes', id)?.parentNodeId ?? null)
    if (id === ancestorId) return true;
  return false;
}

export const subagentScenarios: ProviderScenario[] = [
  {
    name: 'subagent',
    needs: ['subagents.supportsSubagents', 'subagents.emitsSubagentLifecycle'],
    model: [
      {
        kind: 'subagent',
        description: 'Work out the answer',
        prompt: 'What is six times seven? Answer in one sentence.',
        steps: [{ kind: 'text', text: 'Six times seven is 42.' }],
        callId: 'call_subagent',
      },
      { kind: 'text', text: 'My helper worked it out: 42.' },
    ],
    async drive({ h, cwd, declares }) {
      const threadId = await h.thread({ threadId: 'thr_subagent', cwd });
      const runId = await send(h, threadId, 'ask a helper what six times seven is');
      await h.until(() => status(h, runId) === 'completed');
      const run = h.store.projections.get('runs', runId)!;
      const sub = subagentOf(h, threadId, runId);
      check(sub.status === 'completed', `the subagent node completed, got ${sub.status}`);
      check(!sub.countsForRun, 'a subagent does not count for the run');
      // The activity feed says when it started and how it ended, on its node.
      const feed = h.store.projections
        .list('activities', threadId)
        .filter((a) => a.nodeId === sub.id && a.kind.startsWith('subagent.'))
        .map((a) => `${a.kind} ${a.status ?? ''}`.trim());
      check(
        JSON.stringify(feed) === JSON.stringify(['subagent.started', 'subagent.completed completed']),
        `the subagent's activities, got ${JSON.stringify(feed)}`,
      );
      if (declares('subagents.exposesSubagentThreadIds')) checkChildThread(h, threadId, sub.id);
      const item = h.store.projections.get('turn_items', sub.id);
      check(
        item?.kind === 'subagent' && item.status === 'completed' && item.text === 'Six times seven is 42.',
        `the subagent's item holds its answer, got ${JSON.stringify(item)}`,
      );
      // The run is the root turn's: one attempt, its root node completed, the parent's answer its last word.
      const root = h.store.projections.get('graph_nodes', run.rootNodeId!)!;
      check(
        run.attempts.length === 1 && root.status === 'completed',
        `one attempt, root completed: ${JSON.stringify(run)}`,
      );
      check(
        JSON.stringify(assistantTexts(h, threadId)) === JSON.stringify(['My helper worked it out: 42.']),
        `the parent's answer is the run's only assistant message, got ${JSON.stringify(assistantTexts(h, threadId))}`,
      );
      const message = h.store.projections.list('messages', threadId).find((m) => m.role === 'assistant')!;
      check(
        !under(h, message.nodeId, sub.id) && under(h, message.nodeId, run.rootNodeId!),
        "the parent's message is under the root, not the subagent",
      );
      // Whatever else the subagent did is under its node, never beside it under the root.
      const others = h.store.projections
        .list('graph_nodes', threadId)
        .filter((n) => n.runId === runId && n.id !== sub.id && n.id !== root.id && n.kind !== 'assistant_message');
      check(
        others.every((n) => under(h, n.id, sub.id)),
        `every other node is the subagent's, got ${JSON.stringify(others)}`,
      );
    },
  },
  {
    name: 'subagent_checkpoint',
    needs: [
      'subagents.supportsSubagents',
      'checkpointing.appCanCheckpointFilesystem',
      'checkpointing.supportsNestedCheckpointScopes',
      'approvals.supportsCommandApproval',
      'approvals.approvalsCanOriginateFromSubagents',
    ],
    model: [
      {
        kind: 'subagent',
        description: 'Write the notes',
        prompt: 'Write sub-notes.md with one line.',
        steps: [
          {
            kind: 'command',
            command: "printf 'written by the subagent\\n' > sub-notes.md",
            needsApproval: true,
            callId: 'call_sub_write',
          },
          { kind: 'text', text: 'Wrote sub-notes.md.' },
        ],
        callId: 'call_subagent_cp',
      },
      { kind: 'text', text: 'The notes are written.' },
    ],
    async drive({ h, cwd, live, declares }) {
      const threadId = await h.thread({ threadId: 'thr_subagent_cp', cwd });
      const runId = await send(h, threadId, 'have a helper write the notes');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const sub = subagentOf(h, threadId, runId);
      // The subagent's command asks for approval: a request under the subagent's node, answered as any other.
      const request = h.store.projections.list('requests', threadId).find((r) => r.status === 'pending')!;
      check(
        request.kind === 'command' && request.runId === runId && under(h, request.nodeId, sub.id),
        `a command approval under the subagent's node, got ${JSON.stringify(request)}`,
      );
      // The subagent's ask holds the session as much as the parent's own would.
      await h.until(() => h.store.projections.list('sessions', threadId).some((x) => x.status === 'waiting'));
      check(
        (await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' })).ok,
        'approved',
      );
      await h.until(() => status(h, runId) === 'completed');
      if (live)
        check(
          existsSync(join(cwd, 'sub-notes.md')) &&
            readFileSync(join(cwd, 'sub-notes.md'), 'utf8') === 'written by the subagent\n',
          'the subagent wrote the file',
        );
      const node = h.store.projections.get('graph_nodes', sub.id)!;
      check(node.status === 'completed', `the subagent completed, got ${node.status}`);
      if (declares('subagents.exposesSubagentThreadIds')) checkChildThread(h, threadId, sub.id);

      // Its own scope, captured when it ended; the run's root checkpoint is on the same run.
      await h.until(() =>
        h.store.projections
          .list('checkpoints', threadId)
          .some((c) => c.scopeKind === 'subagent' && c.nodeId === sub.id),
      );
      const checkpoints = h.store.projections.list('checkpoints', threadId);
      const child = checkpoints.find((c) => c.scopeKind === 'subagent' && c.nodeId === sub.id)!;
      const rootCp = checkpoints.find((c) => c.scopeKind === 'root_run' && c.runId === runId)!;
      const run = h.store.projections.get('runs', runId)!;
      check(
        child.status === 'ready' &&
          child.runId === runId &&
          child.runOrdinal === run.ordinal &&
          child.runStatus === null,
        `a ready subagent checkpoint of the run, got ${JSON.stringify(child)}`,
      );
      check(
        rootCp && run.checkpointId === rootCp.id && rootCp.scopeId !== child.scopeId && rootCp.status === 'ready',
        `the run's own root checkpoint, in its own scope, got ${JSON.stringify(rootCp)}`,
      );
      check(
        checkpoints.filter((c) => c.scopeKind === 'subagent').length === 1 &&
          h.store.projections.get('threads', threadId)!.runCount === 1,
        'one child scope, and it does not count as a run',
      );
      if (live)
        check(
          child.diff?.files === 1 && rootCp.diff?.files === 1,
          `the subagent's file is in its scope's diff and in the run's, got ${JSON.stringify([child.diff, rootCp.diff])}`,
        );
      const activities = h.store.projections
        .list('activities', threadId)
        .filter((a) => a.kind === 'checkpoint.captured' && a.runId === runId);
      check(
        activities.some((a) => a.nodeId === sub.id) && activities.some((a) => a.nodeId === null),
        `both captures are activities of the run, got ${JSON.stringify(activities)}`,
      );
    },
  },
];
