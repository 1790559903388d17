import { expect, it } from 'vitest';
import { useRuntime } from '../support/runtime.js';
import { streamSnapshot } from '../../src/server/streams.js';
import { ThreadId } from '../../src/domain/ids.js';
import { describeThread, ThreadHistory } from '../../src/cli/describe-thread.js';

/** `baton tail`'s history, from a real runtime's thread snapshot, mid-run. */
const open = useRuntime();

it('a thread so far: a finished run, then a streaming message, a tool, a plan and a request still waiting', async () => {
  const h = open();
  const threadId = await h.thread();
  const history = () =>
    ThreadHistory.parse(streamSnapshot(h.store, { stream: 'thread', threadId: ThreadId.parse(threadId) }));

  const first = await h.running(threadId, 'first question', 't1');
  const onFirst = { threadId, runId: first.runId, nodeId: first.rootNodeId };
  await h.feed({ type: 'message.completed', ...onFirst, messageId: 'msg_reply1', text: 'first answer' });
  await h.feed({
    type: 'turn.completed',
    ...onFirst,
    attemptId: first.attemptId,
    status: 'failed',
    error: { code: 'provider_error', message: 'boom' },
  });
  await h.until(() => h.ended(first.runId));

  const second = await h.running(threadId, 'second question', 't2');
  const onSecond = { threadId, runId: second.runId };
  await h.feed({
    type: 'message.delta',
    ...onSecond,
    nodeId: second.rootNodeId,
    messageId: 'msg_reply2',
    delta: 'Look',
  });
  await h.feed({
    type: 'message.delta',
    ...onSecond,
    nodeId: second.rootNodeId,
    messageId: 'msg_reply2',
    delta: 'ing',
  });
  await h.feed({
    type: 'node.started',
    ...onSecond,
    nodeId: 'node_ls',
    parentNodeId: second.rootNodeId,
    attemptId: second.attemptId,
    kind: 'tool_call',
    title: 'ls -la',
  });
  await h.feed({
    type: 'plan.updated',
    ...onSecond,
    nodeId: second.rootNodeId,
    planId: 'plan_1',
    kind: 'todo_list',
    text: null,
    steps: [
      { text: 'read', status: 'completed' },
      { text: 'write', status: 'in_progress' },
    ],
  });
  await h.feed({
    type: 'request.opened',
    ...onSecond,
    requestId: 'req_1',
    nodeId: 'node_req_1',
    parentNodeId: second.rootNodeId,
    kind: 'command',
    prompt: 'Run rm?',
    details: {},
    providerSessionId: 'psess_1',
  });

  const snapshot = history();
  expect(describeThread(snapshot)).toBe(
    [
      '',
      '> first question',
      '',
      '< first answer',
      '  [checkpoint for run 1: missing]',
      '  [run failed: boom]',
      '',
      '> second question',
      '',
      '< Looking',
      '  [tool] ls -la',
      '  [plan] ✓ read  … write',
      '  [needs approval] Run rm?  (request req_1)',
      '',
    ].join('\n'),
  );
  // A message still streaming at the end stays open, for the deltas to come.
  await h.feed({
    type: 'message.delta',
    ...onSecond,
    nodeId: second.rootNodeId,
    messageId: 'msg_reply3',
    delta: 'Still',
  });
  expect(describeThread(history()).endsWith('(request req_1)\n\n< Still')).toBe(true);
});
