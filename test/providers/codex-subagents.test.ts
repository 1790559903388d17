import { describe, expect, it } from 'vitest';
import { ProviderSessionId, ThreadId } from '../../src/domain/ids.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { createCodexNormalizer, type CodexNormalizer } from '../../src/providers/codex/codex-normalizer.js';

/**
 * Codex's subagents through the normalizer, fed frames as codex 0.169.0 sends them (measured
 * with multi_agent v1, the runtime Codex offers unless v2 is on: the live and replayed
 * scenarios play v2). No adapter, no runtime.
 */
const threadId = ThreadId.parse('thr_sub');
const sessionId = ProviderSessionId.parse('psess_sub');
const root = 'nthr_root';
const child = 'nthr_child';
const on = { threadId, runId: 'run_t1' };

/** A normalizer driving `root`, its turn `nturn_root` started for run_t1 / att_t1 / node_t1. */
function started(): CodexNormalizer {
  const ids = new SequentialIds('t');
  const n = createCodexNormalizer({ threadId, sessionId, ids });
  n.nativeThreadId = root;
  n.pendingStart = { runId: ids.next('run'), attemptId: ids.next('attempt'), rootNodeId: ids.next('node') };
  note(n, 'turn/started', turnOf(root, 'nturn_root'));
  return n;
}

const note = (n: CodexNormalizer, method: string, params: unknown) => n.normalize({ method, params });
const turnOf = (thread: string, id: string, status = 'inProgress', rootTurnId = 'nturn_root') => ({
  threadId: thread,
  turn: { id, rootTurnId, status, error: null, items: [] },
});
const item = (thread: string, turnId: string, it: Record<string, unknown>) => ({ threadId: thread, turnId, item: it });
const collab = (id: string, tool: string, status: string, receivers: string[], extra = {}) => ({
  type: 'collabAgentToolCall',
  id,
  tool,
  status,
  senderThreadId: root,
  receiverThreadIds: receivers,
  prompt: null,
  model: null,
  reasoningEffort: null,
  agentsStates: {},
  ...extra,
});

/** A v2 spawn of the child `/root/helper`, on thread `child`, as the root turn's item. */
const helperSpawn = {
  type: 'subAgentActivity',
  id: 'call_spawn',
  kind: 'started',
  agentThreadId: child,
  agentPath: '/root/helper',
};

/** `started()` with the helper spawned in its root turn. */
function withHelper(): CodexNormalizer {
  const n = started();
  note(n, 'item/started', item(root, 'nturn_root', helperSpawn));
  return n;
}

describe("Codex's subagents, as the normalizer maps them", () => {
  it("a v1 spawn: a subagent node under the root turn, bound to its child thread; the child's items, plan, approval and end are its node's", () => {
    const n = started();
    const spawn = { prompt: 'What is six times seven?', reasoningEffort: 'medium' };
    expect(
      note(n, 'item/started', item(root, 'nturn_root', collab('call_spawn', 'spawnAgent', 'inProgress', [], spawn))),
    ).toEqual([
      {
        type: 'node.started',
        ...on,
        nodeId: 'node_t2',
        parentNodeId: 'node_t1',
        attemptId: 'att_t1',
        kind: 'subagent',
        title: 'What is six times seven?',
      },
      {
        type: 'node.detail',
        ...on,
        nodeId: 'node_t2',
        text: null,
        detail: { tool: 'spawn_agent', callId: 'call_spawn', prompt: 'What is six times seven?', nativeThreadId: null },
      },
    ]);
    // The child thread's own status is not the session's.
    expect(note(n, 'thread/status/changed', { threadId: child, status: { type: 'idle' } })).toEqual([]);
    const done = collab('call_spawn', 'spawnAgent', 'completed', [child], { ...spawn, model: 'gpt-5.1-codex' });
    // Named at last: the child's thread is a provider thread of Baton's, owned by its node.
    const thread = { ...on, nodeId: 'node_t2', providerThreadId: 'pthr_t1', nativeThreadRef: child };
    expect(note(n, 'item/completed', item(root, 'nturn_root', done))).toEqual([
      { type: 'subagent.thread', ...thread, change: 'bound' },
      {
        type: 'node.detail',
        ...on,
        nodeId: 'node_t2',
        text: null,
        detail: { nativeThreadId: child, providerThreadId: 'pthr_t1', model: 'gpt-5.1-codex' },
      },
    ]);

    // The child's turn is its node's, never a turn of the run.
    const events = [
      ...note(n, 'turn/started', turnOf(child, 'nturn_child')),
      ...note(n, 'item/started', item(child, 'nturn_child', { type: 'userMessage', id: 'u1', content: [] })),
      ...note(n, 'turn/plan/updated', {
        threadId: child,
        turnId: 'nturn_child',
        explanation: null,
        plan: [{ step: 'multiply', status: 'inProgress' }],
      }),
      ...note(n, 'item/started', item(child, 'nturn_child', { type: 'commandExecution', id: 'call_x', command: 'ls' })),
      ...n.normalize({
        id: 0,
        method: 'item/commandExecution/requestApproval',
        params: { threadId: child, turnId: 'nturn_child', itemId: 'call_x', command: 'ls', reason: null },
      }),
      ...note(n, 'item/started', item(child, 'nturn_child', { type: 'agentMessage', id: 'm1', text: '' })),
      ...['Six times ', 'seven is 42.'].flatMap((delta) =>
        note(n, 'item/agentMessage/delta', { threadId: child, turnId: 'nturn_child', itemId: 'm1', delta }),
      ),
      ...note(
        n,
        'item/completed',
        item(child, 'nturn_child', { type: 'agentMessage', id: 'm1', text: 'Six times seven is 42.' }),
      ),
      ...note(n, 'turn/completed', turnOf(child, 'nturn_child', 'completed')),
    ];
    expect(events.map((e) => e.type)).toEqual([
      'node.detail',
      'subagent.thread',
      'plan.updated',
      'node.started',
      'node.detail',
      'request.opened',
      'node.delta',
      'node.delta',
      'subagent.thread',
      'node.detail',
      'node.completed',
    ]);
    expect(events[0]).toMatchObject({ nodeId: 'node_t2', detail: { nativeTurnId: 'nturn_child' } });
    expect(events[1]).toEqual({ type: 'subagent.thread', ...thread, change: 'turn_began' });
    expect(events[2]).toMatchObject({ nodeId: 'node_t2', kind: 'todo_list', planId: 'plan_t1' });
    expect(events[3]).toMatchObject({ nodeId: 'node_t3', parentNodeId: 'node_t2', kind: 'tool_call' });
    expect(events[5]).toMatchObject({ ...on, kind: 'command', parentNodeId: 'node_t3' });
    expect(events.slice(6, 8).map((e) => e.type === 'node.delta' && [e.nodeId, e.delta])).toEqual([
      ['node_t2', 'Six times '],
      ['node_t2', 'seven is 42.'],
    ]);
    expect(events.slice(8)).toEqual([
      { type: 'subagent.thread', ...thread, change: 'turn_ended' },
      { type: 'node.detail', ...on, nodeId: 'node_t2', text: 'Six times seven is 42.', detail: {} },
      { type: 'node.completed', ...on, nodeId: 'node_t2', status: 'completed' },
    ]);

    // A wait on it is told on its node; the root turn's end is the run's.
    const states = { [child]: { status: 'completed', message: 'Six times seven is 42.' } };
    const wait = collab('call_wait', 'wait', 'completed', [child], { agentsStates: states });
    expect(note(n, 'item/completed', item(root, 'nturn_root', wait))).toEqual([
      {
        type: 'node.detail',
        ...on,
        nodeId: 'node_t2',
        text: null,
        detail: { lastCall: { tool: 'wait', status: 'completed' }, agent: states[child] },
      },
    ]);
    expect(note(n, 'turn/completed', turnOf(root, 'nturn_root', 'completed'))).toMatchObject([
      { type: 'turn.completed', nodeId: 'node_t1', status: 'completed' },
    ]);
  });

  it('a v2 spawn names its thread at once; an interrupt finds its running turn; a lost session ends it interrupted, and its provider thread lost', () => {
    const n = started();
    const activity = { ...helperSpawn, model: 'gpt-5.1-codex', reasoningEffort: 'medium' };
    const thread = { ...on, nodeId: 'node_t2', providerThreadId: 'pthr_t1', nativeThreadRef: child };
    expect(note(n, 'item/started', item(root, 'nturn_root', activity))).toMatchObject([
      { type: 'node.started', nodeId: 'node_t2', parentNodeId: 'node_t1', kind: 'subagent', title: '/root/helper' },
      {
        type: 'node.detail',
        detail: { tool: 'spawn_agent', agentPath: '/root/helper', nativeThreadId: child, providerThreadId: 'pthr_t1' },
      },
      { type: 'subagent.thread', ...thread, change: 'bound' },
    ]);
    expect(note(n, 'item/completed', item(root, 'nturn_root', activity))).toEqual([]);
    note(n, 'turn/started', turnOf(child, 'nturn_child'));
    expect(n.subagents.runningTurns()).toEqual([{ threadId: child, turnId: 'nturn_child' }]);
    const error = { threadId: child, turnId: 'nturn_child', error: { message: 'stream dropped' }, willRetry: true };
    expect(note(n, 'error', error)).toEqual([
      { type: 'warning', ...on, message: 'Codex subagent: stream dropped (retrying)' },
    ]);
    expect(n.subagents.closeAll()).toEqual([
      { type: 'node.completed', ...on, nodeId: 'node_t2', status: 'interrupted' },
      { type: 'subagent.thread', ...thread, change: 'lost' },
    ]);
    expect(n.subagents.closeAll()).toEqual([]);
    expect(n.subagents.runningTurns()).toEqual([]);
  });

  it("an MCP server's form asked in a child's turn is a question request under the child's call of that server", () => {
    const n = withHelper();
    note(n, 'turn/started', turnOf(child, 'nturn_child'));
    const call = {
      type: 'mcpToolCall',
      id: 'call_book',
      server: 'form',
      tool: 'book',
      status: 'inProgress',
      arguments: {},
      result: null,
      error: null,
      durationMs: null,
    };
    expect(note(n, 'item/started', item(child, 'nturn_child', call))).toMatchObject([
      { type: 'node.started', nodeId: 'node_t3', parentNodeId: 'node_t2', title: 'form/book' },
      { type: 'node.detail' },
    ]);
    const form = { type: 'object', properties: { ok: { type: 'boolean', title: 'OK?' } }, required: ['ok'] };
    const asked = n.serverRequest(7, 'mcpServer/elicitation/request', {
      threadId: child,
      turnId: 'nturn_child',
      serverName: 'form',
      mode: 'form',
      _meta: null,
      message: 'Go on?',
      requestedSchema: form,
    });
    expect(asked).toMatchObject([
      { type: 'request.opened', ...on, kind: 'user_input', prompt: 'Go on?', parentNodeId: 'node_t3' },
      {
        type: 'plan.updated',
        kind: 'questions',
        questions: [{ id: 'ok', options: [{ label: 'Yes' }, { label: 'No' }] }],
      },
    ]);
    expect([...n.requests.values()]).toMatchObject([{ rpcId: 7, method: 'mcpServer/elicitation/request', form }]);
  });

  it('a child waiting on an approval makes the session wait (as codex 0.169.0 says it: the parent stays active); its answer lets it run again', () => {
    const n = withHelper();
    const status = (thread: string, s: Record<string, unknown>) =>
      note(n, 'thread/status/changed', { threadId: thread, status: s }).map(
        (e) => e.type === 'session.status' && e.status,
      );
    expect(status(root, { type: 'active', activeFlags: [] })).toEqual(['running']);
    expect(status(child, { type: 'active', activeFlags: [] })).toEqual([]);
    expect(status(child, { type: 'active', activeFlags: ['waitingOnApproval'] })).toEqual(['waiting']);
    // The parent's own news does not hide the child's wait.
    expect(status(root, { type: 'active', activeFlags: [] })).toEqual(['waiting']);
    expect(status(child, { type: 'active', activeFlags: [] })).toEqual(['running']);
    expect(status(child, { type: 'idle' })).toEqual([]);
    expect(status(root, { type: 'idle' })).toEqual(['ready']);
    // A thread that is not ours says nothing.
    expect(status('nthr_other', { type: 'active', activeFlags: ['waitingOnApproval'] })).toEqual([]);
  });

  it("a child turn whose spawn was not seen is adopted under the root turn it names; a follow-up turn is a new node on the same provider thread; other threads' turns are not ours", () => {
    const n = started();
    const thread = { ...on, providerThreadId: 'pthr_t1', nativeThreadRef: child };
    expect(note(n, 'turn/started', turnOf(child, 'nturn_a'))).toMatchObject([
      { type: 'node.started', nodeId: 'node_t2', parentNodeId: 'node_t1', kind: 'subagent' },
      { type: 'node.detail', detail: { adopted: true, nativeThreadId: child, providerThreadId: 'pthr_t1' } },
      { type: 'subagent.thread', ...thread, nodeId: 'node_t2', change: 'bound' },
      { type: 'node.detail', detail: { nativeTurnId: 'nturn_a' } },
      { type: 'subagent.thread', ...thread, nodeId: 'node_t2', change: 'turn_began' },
    ]);
    expect(note(n, 'turn/completed', turnOf(child, 'nturn_a', 'interrupted'))).toEqual([
      { type: 'subagent.thread', ...thread, nodeId: 'node_t2', change: 'turn_ended' },
      { type: 'node.completed', ...on, nodeId: 'node_t2', status: 'interrupted' },
    ]);
    // The same conversation: no new provider thread, the follow-up's node names the first one.
    expect(note(n, 'turn/started', turnOf(child, 'nturn_b'))).toMatchObject([
      { type: 'node.started', nodeId: 'node_t3', parentNodeId: 'node_t1', kind: 'subagent' },
      { type: 'node.detail', detail: { adopted: false, providerThreadId: 'pthr_t1' } },
      { type: 'node.detail', detail: { nativeTurnId: 'nturn_b' } },
      { type: 'subagent.thread', ...thread, nodeId: 'node_t3', change: 'turn_began' },
    ]);
    expect(note(n, 'turn/started', turnOf('nthr_stranger', 'nturn_s', 'inProgress', 'nturn_unknown'))).toEqual([]);
    expect(n.pendingStart).toBeNull();
  });

  it('a closed child closes its provider thread; a child resumed after that is a new one', () => {
    const n = started();
    const spawn = collab('call_spawn', 'spawnAgent', 'completed', [child]);
    note(n, 'item/started', item(root, 'nturn_root', { ...spawn, status: 'inProgress', receiverThreadIds: [] }));
    note(n, 'item/completed', item(root, 'nturn_root', spawn));
    note(n, 'turn/started', turnOf(child, 'nturn_a'));
    note(n, 'turn/completed', turnOf(child, 'nturn_a', 'completed'));
    const close = collab('call_close', 'closeAgent', 'completed', [child], {
      agentsStates: { [child]: { status: 'shutdown', message: null } },
    });
    expect(note(n, 'item/completed', item(root, 'nturn_root', close))).toEqual([
      {
        type: 'node.detail',
        ...on,
        nodeId: 'node_t2',
        text: null,
        detail: { lastCall: { tool: 'closeAgent', status: 'completed' }, agent: { status: 'shutdown', message: null } },
      },
      {
        type: 'subagent.thread',
        ...on,
        nodeId: 'node_t2',
        providerThreadId: 'pthr_t1',
        nativeThreadRef: child,
        change: 'closed',
      },
    ]);
    // A closed thread ends once; the session's end says nothing more of it.
    expect(note(n, 'item/completed', item(root, 'nturn_root', close)).map((e) => e.type)).toEqual(['node.detail']);
    expect(n.subagents.closeAll()).toEqual([]);
    // v1's resume_agent opens it again: a new node, and a provider thread of its own.
    expect(note(n, 'turn/started', turnOf(child, 'nturn_b')).filter((e) => e.type === 'subagent.thread')).toEqual([
      {
        type: 'subagent.thread',
        ...on,
        nodeId: 'node_t3',
        providerThreadId: 'pthr_t2',
        nativeThreadRef: child,
        change: 'bound',
      },
      {
        type: 'subagent.thread',
        ...on,
        nodeId: 'node_t3',
        providerThreadId: 'pthr_t2',
        nativeThreadRef: child,
        change: 'turn_began',
      },
    ]);
  });
});
