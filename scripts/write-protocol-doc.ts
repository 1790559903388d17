import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointHandlers } from '../src/actors/checkpoint-effects.js';
import { EffectWorker } from '../src/actors/effect-worker.js';
import { reportEffectOutcome } from '../src/actors/live-work-effects.js';
import { ProviderRegistry } from '../src/providers/registry.js';
import { codexCapabilities } from '../src/providers/codex/codex-capabilities.js';
import { createCodexNormalizer } from '../src/providers/codex/codex-normalizer.js';
import { Runtime } from '../src/actors/runtime.js';
import { CheckpointStore } from '../src/checkpoints/checkpoint-store.js';
import { z } from 'zod';
import { Command, commandTypes } from '../src/domain/commands.js';
import { RunId, ThreadId } from '../src/domain/ids.js';
import { eventTypes, type DomainEvent } from '../src/domain/events.js';
import { ManualClock, SequentialIds } from '../src/domain/sources.js';
import { Store } from '../src/persistence/store.js';
import { commandExamples } from './protocol-examples.js';
import { securityAndLimits } from './protocol-doc-security.js';
import { mcpProtocolSection } from '../src/mcp/protocol-section.js';
import { activityEventTypes } from '../src/projections/activities.js';
import { Activity, ActivityKind } from '../src/domain/projections.js';
import { defaultDiffLimits } from '../src/server/checkpoint-diff-git.js';

/**
 * `npm run docs` writes docs/protocol.md: the contract (connection, commands, streams,
 * queries, events) with examples. Command examples are parsed with the command schema;
 * event examples are real events, captured from a scripted session through the runtime.
 * `npm run docs:check` fails when the file is stale.
 */
const check = process.argv.includes('--check');
const target = new URL('../docs/protocol.md', import.meta.url);

let activitySample: Activity[] = [];

// The parts of command results the doc session reads.
const Created = z.object({ threadId: ThreadId });
const Sent = z.object({ runId: RunId });

async function captureEvents(): Promise<Map<string, DomainEvent>> {
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
    activitySample = z
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
    return seen;
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
}

const json = (v: unknown) => '```json\n' + JSON.stringify(v, null, 2) + '\n```';

const events = await captureEvents();
const lines: string[] = [
  '# Baton protocol',
  '',
  'Generated by `npm run docs` from the zod schemas (`src/domain/`), the command examples (`scripts/protocol-examples.ts`, each parsed by the command schema) and real events captured from a scripted session through the runtime. JSON Schema for every message: `npm run schema` (into `schema/`).',
  '',
  '## Connecting',
  '',
  "Socket.IO over HTTP on `BATON_HOST:BATON_PORT` (default `127.0.0.1:7420`). The handshake must carry the token: `io(url, { auth: { token } })`. Without it, or with a wrong one, the connection is refused with `unauthorized`; from a browser, the page's origin must also be allowed (see [Security](#security)). `GET /healthz` answers `{ ok, lastSequence, liveThreads }`.",
  '',
  'The typed client (`src/client/`, the package export) does all of this: `BatonClient.connect(url, token)`, `client.command(type, payload)` (a commandId is added), `client.subscribe(request, onEvent)` (resubscribes with `afterSequence` after a reconnect, so `onEvent` sees every event once, in order).',
  '',
  '## Commands',
  '',
  'Emit `command` with `{ commandId, type, ...payload }` and an ack callback. The ack is `{ ok: true, commandId, sequence, result }` (`sequence`: the last committed event sequence) or `{ ok: false, commandId, error: { code, message, details? } }`. Commands are idempotent: a `commandId` seen before returns the first receipt and does nothing again. Error codes: ' +
    '`invalid_command`, `unknown_command_type`, `invalid_payload`, `not_found`, `conflict`, `invalid_transition` (the thread or run cannot take that command in its current state), `not_resumable`, `unsupported`, `provider_error`, `internal`.',
  '',
];
for (const type of commandTypes) {
  const { example, result, notes } = commandExamples[type];
  Command.parse(example);
  lines.push(
    `### \`${type}\``,
    '',
    notes,
    '',
    json(example),
    '',
    'Ack:',
    '',
    json({ ok: true, commandId: example.commandId, sequence: 42, result }),
    '',
  );
}
lines.push(
  '## Subscriptions',
  '',
  'Emit `subscribe` with `{ stream, ...params, afterSequence? }`. The ack is `{ ok: true, subscriptionId, snapshot, snapshotSequence }`; then `stream` messages `{ subscriptionId, sequence, event }` arrive for every committed event of that stream with `sequence > snapshotSequence`, in order, each once. With `afterSequence` the snapshot is `null` and the events after that sequence are sent first: a client that reconnects misses nothing. `unsubscribe` takes the subscriptionId. A subscriber that falls too far behind is disconnected (never the runtime slowed); it resubscribes with `afterSequence`.',
  '',
  '| stream | params | snapshot | events |',
  '|---|---|---|---|',
  '| `threads` | | `{ threads: ThreadShell[] }` (the sidebar) | `thread.*`, `run.*` |',
  '| `thread` | `threadId` | `{ thread, runs, turnItems, visibleTurnItems, messages, plans, pendingRequests, checkpoints, contextTransfers, handoffs, delegatedTasks }` (a run no message of the client made carries `origin`: `{ kind: "task_wake", taskId, taskRunId, status }` for a delegated task’s wake-up, `{ kind: "agent_turn", reason, nodeId }` for a turn the agent began of its own, e.g. Claude answering a background subagent’s notification; `delegatedTasks` are the tasks the thread’s agents delegated, with their wake-up state; items and messages of rolled-back runs stay in `turnItems` and `messages` with `rolledBack: true`; `visibleTurnItems` is the conversation as it stands; a `system` item with `data.contextSeed` is the context Baton gave a provider thread that lacked it; `thread.agentMode` is `{ id, name }`, the mode the agent of the thread last said its session runs in, ACP session modes, null until one says, never a setting: `thread.agent-mode-changed`) | every event of the thread |',
  "| `graph` | `threadId` | `{ nodes, runs }` (the execution graph; a node's `detail` holds its item's facts: exit code, duration, output, files, result) | `node.*`, `attempt.*`, `run.*`, `provider-thread.*` |",
  '| `activities` | `threadId` | `{ activities: Activity[] }` (the feed, oldest first) | the events that add an activity: ' +
    [...activityEventTypes].map((t) => `\`${t}\``).join(', ') +
    ' |',
  '| `requests` | | `{ requests }` (pending runtime requests) | `runtime-request.*` |',
  '| `sessions` | | `{ sessions }` (provider sessions) | `provider-session.*` |',
  '',
  json({ stream: 'thread', threadId: 'thr_01' }),
  '',
  'An `Activity` is `{ id, threadId, runId, nodeId, kind, title, status, position, at }`, keyed by run and node so a client can group it; `kind` is one of ' +
    ActivityKind.options.map((k) => `\`${k}\``).join(', ') +
    ". A client applies the stream's events the way the projection does, or re-reads the snapshot. From the scripted session:",
  '',
  json(activitySample),
  '',
  '## Queries',
  '',
  'Emit `query` for one-off reads; the ack is `{ ok: true, result }`.',
  '',
  '- `{ type: "snapshot", request: { stream, ...params } }` -> `{ snapshot, snapshotSequence }`',
  '- `{ type: "events", afterSequence, limit?, threadId? }` -> `{ events }`',
  '- `{ type: "receipt", commandId }` -> `{ receipt }`',
  '- `{ type: "actors", threadId, sinceSequence? }` -> `{ actors, sequence }`: the state of each persisted actor of the thread (its supervisor, runs, attempts, nodes, runtime requests, provider sessions and threads, context transfers and handoffs), as its entity row holds it: `{ kind, id, machineId, machineVersion, state, status, lastSequence, updatedAt }`, in the order they were created. `state` is the XState state value (`"queued"`, `{ "live": { "running": "working" } }`), `status` the actor\'s (`active`, `done`); the charts are in `statecharts/`. `sequence` is the last committed sequence at the read; with `sinceSequence`, only the actors whose row was written at or after it (a commit without events stamps its rows with the sequence before it, so asking again from the last `sequence` misses none). The console refreshes it as the thread\'s events arrive.',
  "- `{ type: \"checkpoint-diff\", checkpointId, baseCheckpointId? }` -> `{ checkpointId, baseCheckpointId, files, totalFiles, truncated, limits }`: a checkpoint's changes file by file, read with git from the trees Baton keeps for the thread's workspace. By default from the checkpoint its own summary was counted against (the run before's; for a subagent's, the capture before it in its run; `baseCheckpointId: null` for the start: every file `added`), or from `baseCheckpointId`, a ready checkpoint of the same thread. Each file is `{ path, status, binary, additions, deletions, patch, truncated }`, in path order; `status` is `added`, `modified` or `deleted`; `patch` is git's unified diff of the file. The answer is bounded (`limits`: " +
    `${defaultDiffLimits.files} files listed, ${defaultDiffLimits.patchChars.toLocaleString('en-US')} characters of patch per file, ${defaultDiffLimits.totalPatchChars.toLocaleString('en-US')} in all, no patch for a file whose two versions weigh over ${defaultDiffLimits.fileBytes / 1024 / 1024} MiB together` +
    '): a patch is cut at a line, or left out (`patch: ""`), and marked `truncated`; `truncated` on the answer says something was cut, `totalFiles` counts every changed file. An unknown checkpoint is `not_found`; one not `ready` (stale after a rollback, missing, failed) is `conflict`.',
  '',
  ...mcpProtocolSection(),
  ...securityAndLimits(),
  '## Events',
  '',
  'Every event has the envelope `{ sequence, eventId, commandId, causationId, threadId, type, payload, at }`; `sequence` is global and gap-free. The examples below are real events from a scripted session.',
  '',
);
for (const type of eventTypes) {
  const example = events.get(type);
  lines.push(
    `### \`${type}\``,
    '',
    example ? json(example) : '_Not produced by the scripted session; see `schema/events.json` for its payload._',
    '',
  );
}
const text = lines.join('\n');
if (check) {
  if (!existsSync(target) || readFileSync(target, 'utf8') !== text) {
    console.error('docs/protocol.md is stale: run npm run docs');
    process.exit(1);
  }
  console.log('docs/protocol.md is up to date');
} else {
  mkdirSync(new URL('../docs/', import.meta.url), { recursive: true });
  writeFileSync(target, text);
  console.log(
    `wrote docs/protocol.md (${commandTypes.length} commands, ${events.size} of ${eventTypes.length} events with captured examples)`,
  );
}
