import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { checkpointHandlers } from '../src/actors/checkpoint-effects.js';
import { EffectWorker } from '../src/actors/effect-worker.js';
import { reportEffectOutcome } from '../src/actors/live-work-effects.js';
import { Runtime } from '../src/actors/runtime.js';
import { CheckpointStore } from '../src/checkpoints/checkpoint-store.js';
import { RunId, ThreadId } from '../src/domain/ids.js';
import type { DomainEvent } from '../src/domain/events.js';
import { Activity } from '../src/domain/projections.js';
import { ManualClock, SequentialIds } from '../src/domain/sources.js';
import { Store } from '../src/persistence/store.js';
import { codexCapabilities } from '../src/providers/codex/codex-capabilities.js';
import { createCodexNormalizer } from '../src/providers/codex/codex-normalizer.js';
import { ProviderRegistry } from '../src/providers/registry.js';

/** What the scripted session yields for docs/protocol.md: the first event of each type, and the activity feed. */
export interface DocSession {
  events: Map<string, DomainEvent>;
  activities: Activity[];
}

// The parts of command results the doc session reads.
const Created = z.object({ threadId: ThreadId });
const Sent = z.object({ runId: RunId });

/**
 * Runs a scripted session through the runtime (a scripted Codex provider, a temporary store
 * and workspace) and captures real events for the examples; the workspace path is replaced
 * by `/home/me/project` so the doc does not depend on the machine.
 */
export async function captureDocSession(): Promise<DocSession> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-doc-'));
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'baton-doc-ws-')));
  const clock = new ManualClock();
  const store = Store.open(join(dir, 'doc.sqlite'), { clock });
  const providers = new ProviderRegistry();
  const runtime = new Runtime({
    store,
    clock,
    ids: new SequentialIds(),
    providers,
    requestTtlMs: 60_000,
    checkpoints: new CheckpointStore({ root: join(dir, 'checkpoints') }),
  });
  // The scripted provider (Codex's declaration and normalizer) takes answers (a request is resolved once it does).
  providers.register({
    id: 'codex',
    capabilities: codexCapabilities,
    appliedSettings: ['model', 'runtimeMode', 'interactionMode'],
    createNormalizer: createCodexNormalizer,
    handlers: {
      'provider.runtime-request.respond': async (effect, w) =>
        void (await w.settle(effect, 'completed', (t) => reportEffectOutcome(t, effect, null))),
    },
  });
  const worker = new EffectWorker(runtime, checkpointHandlers(runtime.checkpoints));
  const seen = new Map<string, DomainEvent>();
  let activities: Activity[] = [];
  runtime.onEvents((events) =>
    events.forEach(
      (e) => seen.has(e.type) || seen.set(e.type, JSON.parse(JSON.stringify(e).split(ws).join('/home/me/project'))),
    ),
  );
  let n = 0;
  const cmd = async (c: Record<string, unknown>) => {
    const ack = await runtime.dispatch({ commandId: `cmd_${++n}`, ...c });
    if (!ack.ok) throw new Error(`doc session: ${JSON.stringify(ack)}`);
    return ack.result;
  };
  const feed = async (e: Record<string, unknown>) => {
    const out = await runtime.ingest(e);
    if (!out.ok) throw new Error(`doc session: ${JSON.stringify(out)}`);
  };
  const turn = (threadId: string) => {
    const e = store.outbox
      .list({ threadId })
      .filter((x) => x.kind === 'provider.turn.start')
      .at(-1)!;
    return {
      threadId,
      runId: e.runId!,
      attemptId: String(e.payload.attemptId),
      rootNodeId: String(e.payload.rootNodeId),
    };
  };
  try {
    const { threadId } = Created.parse(await cmd({ type: 'thread.create', cwd: ws, title: 'Docs' }));
    await cmd({ type: 'thread.settings.update', threadId, title: 'Docs thread' });
    await cmd({ type: 'thread.message.send', threadId, text: 'Make the tests pass' });
    await worker.drain();
    let t = turn(threadId);
    await feed({
      type: 'session.status',
      threadId,
      sessionId: 'psess_1',
      provider: 'codex',
      status: 'ready',
      reason: null,
    });
    await feed({
      type: 'thread.loaded',
      threadId,
      providerThreadId: store.projections.get('threads', threadId)!.activeProviderThreadId,
      nativeThreadRef: 'native-thread',
      resumeCursor: null,
    });
    // The mode the agent says its session is in (an ACP agent's), shown on the thread, never a setting.
    await feed({ type: 'mode.updated', threadId, runId: null, modeId: 'plan', name: 'Plan Mode' });
    await feed({
      type: 'turn.started',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      nativeTurnRef: 'native-turn-1',
    });
    await feed({
      type: 'plan.updated',
      threadId,
      runId: t.runId,
      nodeId: t.rootNodeId,
      planId: 'plan_1',
      kind: 'todo_list',
      text: null,
      steps: [{ text: 'run the tests', status: 'in_progress' }],
    });
    await feed({
      type: 'node.started',
      threadId,
      runId: t.runId,
      nodeId: 'node_tool',
      parentNodeId: t.rootNodeId,
      attemptId: t.attemptId,
      kind: 'tool_call',
      title: 'npm test',
    });
    await feed({
      type: 'request.opened',
      threadId,
      runId: t.runId,
      requestId: 'req_1',
      nodeId: 'node_req',
      parentNodeId: 'node_tool',
      kind: 'command',
      prompt: 'npm test',
      details: { command: 'npm test' },
      providerSessionId: 'psess_1',
    });
    await cmd({ type: 'runtime-request.respond', requestId: 'req_1', decision: 'accept' });
    await worker.drain();
    await feed({ type: 'node.delta', threadId, runId: t.runId, nodeId: 'node_tool', delta: '42 passed\n' });
    await feed({
      type: 'node.detail',
      threadId,
      runId: t.runId,
      nodeId: 'node_tool',
      text: null,
      detail: { exitCode: 0, durationMs: 2150, output: '42 passed\n' },
    });
    await feed({ type: 'node.completed', threadId, runId: t.runId, nodeId: 'node_tool', status: 'completed' });
    await feed({
      type: 'node.started',
      threadId,
      runId: t.runId,
      nodeId: 'node_reasoning',
      parentNodeId: t.rootNodeId,
      attemptId: t.attemptId,
      kind: 'reasoning',
      title: null,
    });
    await feed({ type: 'node.delta', threadId, runId: t.runId, nodeId: 'node_reasoning', delta: 'The parser ' });
    await feed({
      type: 'node.detail',
      threadId,
      runId: t.runId,
      nodeId: 'node_reasoning',
      text: 'The parser is off by one.',
      detail: {},
    });
    await feed({ type: 'node.completed', threadId, runId: t.runId, nodeId: 'node_reasoning', status: 'completed' });
    await feed({
      type: 'plan.updated',
      threadId,
      runId: t.runId,
      nodeId: t.rootNodeId,
      planId: 'plan_2',
      kind: 'proposed_plan',
      text: '',
      steps: [],
    });
    await feed({ type: 'plan.delta', threadId, runId: t.runId, planId: 'plan_2', delta: '# Fix the parser\n' });
    await feed({
      type: 'diff.updated',
      threadId,
      runId: t.runId,
      diff: 'diff --git a/src/parser.ts b/src/parser.ts\n--- a/src/parser.ts\n+++ b/src/parser.ts\n@@ -1 +1 @@\n-const x = 1\n+const x = 2\n',
    });
    await feed({
      type: 'message.delta',
      threadId,
      runId: t.runId,
      nodeId: t.rootNodeId,
      messageId: 'msg_reply',
      delta: 'All tests ',
    });
    await feed({
      type: 'message.completed',
      threadId,
      runId: t.runId,
      nodeId: t.rootNodeId,
      messageId: 'msg_reply',
      text: 'All tests pass.',
    });
    await feed({ type: 'warning', threadId, runId: t.runId, message: 'Codex: a warning from the provider' });
    await cmd({ type: 'thread.message.send', threadId, text: 'Also update the docs', dispatchMode: 'steer_active' });
    await feed({
      type: 'turn.completed',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      status: 'completed',
      error: null,
    });
    await worker.drain();
    activities = z
      .array(Activity)
      .parse(
        JSON.parse(JSON.stringify(store.projections.list('activities', threadId)).split(ws).join('/home/me/project')),
      );
    await cmd({ type: 'thread.message.send', threadId, text: 'Second run' });
    const queued = Sent.parse(
      await cmd({ type: 'thread.message.send', threadId, text: 'Later', dispatchMode: 'queue_after_active' }),
    );
    const other = Sent.parse(
      await cmd({ type: 'thread.message.send', threadId, text: 'Even later', dispatchMode: 'queue_after_active' }),
    );
    await cmd({ type: 'queued-run.reorder', threadId, order: [other.runId, queued.runId] });
    await cmd({ type: 'queued-run.cancel', runId: other.runId });
    await worker.drain();
    t = turn(threadId);
    await cmd({ type: 'thread.stop', threadId });
    await feed({ type: 'interrupt.acknowledged', threadId, runId: t.runId });
    await feed({
      type: 'turn.completed',
      threadId,
      runId: t.runId,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      status: 'interrupted',
      error: null,
    });
    await worker.drain();
    const fork = Created.parse(
      await cmd({
        type: 'thread.fork',
        sourceThreadId: threadId,
        source: { type: 'run', threadId, runId: store.projections.list('runs', threadId)[0]!.id },
      }),
    );
    await cmd({ type: 'thread.message.send', threadId: fork.threadId, text: 'Continue on the fork' });
    await feed({
      type: 'thread.loaded',
      threadId: fork.threadId,
      providerThreadId: store.projections.get('threads', fork.threadId)!.activeProviderThreadId,
      nativeThreadRef: 'native-fork',
      resumeCursor: null,
      resolution: 'native_fork',
    });
    // Requests: one the provider withdraws, one that expires, one whose callback dies.
    const r = turn(fork.threadId);
    await feed({
      type: 'turn.started',
      threadId: fork.threadId,
      runId: r.runId,
      attemptId: r.attemptId,
      nodeId: r.rootNodeId,
      nativeTurnRef: 'native-turn-f',
    });
    await feed({
      type: 'request.opened',
      threadId: fork.threadId,
      runId: r.runId,
      requestId: 'req_2',
      nodeId: 'node_req_2',
      parentNodeId: r.rootNodeId,
      kind: 'command',
      prompt: 'rm -rf build',
      details: {},
      providerSessionId: 'psess_2',
    });
    await feed({
      type: 'request.closed',
      threadId: fork.threadId,
      requestId: 'req_2',
      reason: 'resolved by the provider',
    });
    await feed({
      type: 'request.opened',
      threadId: fork.threadId,
      runId: r.runId,
      requestId: 'req_3',
      nodeId: 'node_req_3',
      parentNodeId: r.rootNodeId,
      kind: 'file_change',
      prompt: 'edit README.md',
      details: {},
      providerSessionId: 'psess_2',
    });
    clock.advance(60_001);
    await runtime.fireDueTimers();
    await feed({
      type: 'request.opened',
      threadId: fork.threadId,
      runId: r.runId,
      requestId: 'req_4',
      nodeId: 'node_req_4',
      parentNodeId: r.rootNodeId,
      kind: 'user_input',
      prompt: 'Which file?',
      details: {},
      providerSessionId: 'psess_2',
    });
    await feed({
      type: 'runtime.lost',
      threadId: fork.threadId,
      sessionId: null,
      runStatus: 'failed',
      error: { code: 'provider_error', message: 'the Codex process exited' },
    });
    await worker.drain();
    await cmd({ type: 'rollback.toRun', threadId, runOrdinal: 1 });
    await feed({
      type: 'runtime.lost',
      threadId,
      sessionId: 'psess_1',
      runStatus: 'failed',
      error: { code: 'provider_error', message: 'the Codex process exited' },
    });
    await feed({
      type: 'thread.failed',
      threadId,
      providerThreadId: store.projections.get('threads', threadId)!.activeProviderThreadId,
      reason: 'resume failed',
    });
    await cmd({ type: 'thread.archive', threadId });
    await cmd({ type: 'thread.delete', threadId });
    return { events: seen, activities };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
}
