import type { ModelTurn } from '../../src/providers/model/scripted-model-server.js';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness } from '../support/runtime.js';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import type { ProviderCapabilities } from '../../src/domain/capabilities.js';
import type { ProviderKind } from '../../src/domain/statuses.js';

/**
 * Codex scenarios that run both live (real codex + scripted model, which is how their
 * transcripts are recorded) and from their recorded transcripts. Each drives Baton by
 * commands and checks durable projections, never call counts.
 */
export interface ScenarioContext {
  h: Harness;
  cwd: string;
  /** True against the real binary; false in a replay, where no agent touches the workspace. */
  live: boolean;
  /** Live: waits until the model has been asked `n` times. Replay: there is no model. */
  modelAsked(n: number): Promise<void>;
  /** SIGKILLs the thread's Codex process (in a replay, the recorded process dies here). */
  kill(threadId: string): void;
  /** Baton stops (its Codex processes die with it) and starts again on the same data. */
  restart(): Promise<Harness>;
}

export interface CodexScenario {
  name: string;
  model: ModelTurn[];
  /** MCP servers in the Codex home (stdio commands, by name). */
  mcpServers?: Record<string, { command: string; args: string[] }>;
  /** Runs with native steering switched off by capability (to exercise the fallback). */
  withoutNativeSteering?: boolean;
  drive(ctx: ScenarioContext): Promise<void>;
}

/** Declared capabilities with native steering off: the steering fallback's scenario. */
export const withoutNativeSteering = (p: ProviderKind): ProviderCapabilities => ({
  ...codexCapabilities,
  turns: { ...codexCapabilities.turns, supportsActiveSteering: false },
});

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`scenario check failed: ${message}`);
}

async function send(h: Harness, threadId: string, text: string, dispatchMode?: string): Promise<string> {
  const ack = (await h.command({ type: 'thread.message.send', threadId, text, ...(dispatchMode ? { dispatchMode } : {}) })) as { ok: boolean; result: { runId: string } };
  check(ack.ok, `send refused: ${JSON.stringify(ack)}`);
  return ack.result.runId;
}

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;
const assistantTexts = (h: Harness, threadId: string) => h.store.projections.list('messages', threadId).filter((m) => m.role === 'assistant').map((m) => m.text);

export const codexScenarios: CodexScenario[] = [
  {
    name: 'simple',
    model: [{ kind: 'text', text: 'Hello from Codex, offline.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_simple', cwd });
      const runId = await send(h, threadId, 'say hello');
      await h.until(() => status(h, runId) === 'completed');
      const run = h.store.projections.get('runs', runId)!;
      check(run.ordinal === 1 && run.attempts.length === 1, 'one run, one attempt');
      check(h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'root_turn').length === 1, 'one root node');
      check(h.store.bindings.forApp(run.attempts[0]!.id).length === 1, 'one provider turn bound');
      check(JSON.stringify(assistantTexts(h, threadId)) === JSON.stringify(['Hello from Codex, offline.']), `one assistant message, got ${JSON.stringify(assistantTexts(h, threadId))}`);
      check(h.store.projections.list('checkpoints', threadId).filter((c) => c.scopeKind === 'root_run' && c.runOrdinal === 1).length === 1, 'one root checkpoint');
    },
  },
  {
    name: 'multi_turn',
    model: [{ kind: 'text', text: 'First answer.' }, { kind: 'text', text: 'Second answer.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_multi', cwd });
      const one = await send(h, threadId, 'first');
      await h.until(() => status(h, one) === 'completed');
      const two = await send(h, threadId, 'second');
      await h.until(() => status(h, two) === 'completed');
      check(h.store.projections.get('runs', two)!.ordinal === 2, 'the follow-up is run 2');
      check(JSON.stringify(assistantTexts(h, threadId)) === JSON.stringify(['First answer.', 'Second answer.']), 'both answers');
    },
  },
  {
    name: 'approval_request',
    model: [{ kind: 'exec', command: 'echo approved > proof.txt', escalated: true, callId: 'call_approval' }, { kind: 'text', text: 'Done.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_approval', cwd });
      const runId = await send(h, threadId, 'write the proof');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      check(status(h, runId) === 'waiting', 'the run waits on the approval');
      const request = h.store.projections.list('requests', threadId)[0]!;
      const ack = await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' });
      check(ack.ok && (ack as { result: { status: string } }).result.status === 'answering', `accepted, answering until Codex takes it: ${JSON.stringify(ack)}`);
      await h.until(() => status(h, runId) === 'completed');
      check(h.store.projections.get('requests', request.id)!.status === 'resolved', 'request resolved');
      const sessionStatuses = h.store.events.readThreadAfter(threadId, 0).filter((e) => e.type === 'provider-session.changed').map((e) => (e.payload as { session: { status: string } }).session.status);
      check(['running', 'waiting', 'ready'].every((x) => sessionStatuses.includes(x)), `the session went running, waiting, ready: ${sessionStatuses}`);
      const approvals = h.store.projections.list('activities', threadId).filter((a) => a.nodeId === request.nodeId).map((a) => `${a.kind}:${a.status}:${a.runId === runId}`);
      check(JSON.stringify(approvals) === JSON.stringify(['approval.requested:pending:true', 'approval.resolved:accept:true']), `approval activities keyed by run and node, got ${approvals}`);
    },
  },
  {
    name: 'turn_interrupt',
    model: [{ kind: 'hang' }],
    async drive({ h, cwd, modelAsked }) {
      const threadId = await h.thread({ threadId: 'thr_interrupt', cwd });
      const runId = await send(h, threadId, 'take your time');
      await h.until(() => status(h, runId) === 'running');
      await modelAsked(1);
      check((await h.command({ type: 'run.interrupt', runId })).ok, 'interrupt accepted');
      await h.until(() => status(h, runId) === 'interrupted');
      const types = h.store.events.readThreadAfter(threadId, 0).map((e) => e.type);
      check(types.includes('run.interrupt-acknowledged') && types.indexOf('run.interrupt-acknowledged') < types.indexOf('run.terminal'), 'acknowledged before the end');
    },
  },
  {
    name: 'message_steering',
    model: [{ kind: 'hang' }, { kind: 'text', text: 'Steered answer.' }],
    async drive({ h, cwd, modelAsked }) {
      const threadId = await h.thread({ threadId: 'thr_steer', cwd });
      const runId = await send(h, threadId, 'start slowly');
      await h.until(() => status(h, runId) === 'running');
      await modelAsked(1);
      await send(h, threadId, 'answer now', 'steer_active');
      await h.until(() => status(h, runId) === 'completed');
      check(h.store.projections.get('runs', runId)!.attempts.length === 1, 'the run kept its attempt');
      check(assistantTexts(h, threadId).at(-1) === 'Steered answer.', 'the steered answer');
    },
  },
  {
    name: 'user_input_request',
    model: [
      { kind: 'questions', questions: [{ id: 'lang', header: 'Language', question: 'Which language should I use?', options: [{ label: 'TypeScript', description: 'typed' }, { label: 'Rust', description: 'fast' }] }] },
      { kind: 'text', text: 'TypeScript it is.' },
    ],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_questions', cwd, interactionMode: 'plan' });
      const runId = await send(h, threadId, 'plan the work');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const request = h.store.projections.list('requests', threadId)[0]!;
      check(request.kind === 'user_input' && request.prompt === 'Which language should I use?', `a question, got ${JSON.stringify(request)}`);
      const asked = h.store.projections.list('plans', threadId).filter((p) => p.kind === 'questions');
      check(asked.length === 1 && asked[0]!.nodeId === request.nodeId && asked[0]!.runId === runId, `a questions artifact on the request's node, got ${JSON.stringify(asked)}`);
      check(JSON.stringify(asked[0]!.questions) === JSON.stringify([{ id: 'lang', header: 'Language', question: 'Which language should I use?', options: [{ label: 'TypeScript', description: 'typed' }, { label: 'Rust', description: 'fast' }] }]), `its questions, got ${JSON.stringify(asked[0]!.questions)}`);
      check(status(h, runId) === 'waiting', 'the run waits for the answer');
      check((await h.command({ type: 'runtime-request.respond', requestId: request.id, answers: { lang: 'TypeScript' } })).ok, 'answered');
      await h.until(() => status(h, runId) === 'completed');
      check(assistantTexts(h, threadId).at(-1) === 'TypeScript it is.', 'the answer reached the model');
      const kinds = h.store.projections.list('activities', threadId).filter((a) => a.nodeId === request.nodeId).map((a) => a.kind);
      check(JSON.stringify(kinds) === JSON.stringify(['user_input.requested', 'user_input.resolved']), `question activities, got ${kinds}`);
    },
  },
  {
    name: 'fork_native',
    model: [{ kind: 'text', text: 'Source answer.' }, { kind: 'text', text: 'Fork answer.' }],
    async drive({ h, cwd }) {
      const source = await h.thread({ threadId: 'thr_source', cwd });
      const runId = await send(h, source, 'remember the number 42');
      await h.until(() => status(h, runId) === 'completed');
      const forked = await h.command({ type: 'thread.fork', sourceThreadId: source, source: { type: 'run', threadId: source, runId }, threadId: 'thr_fork' });
      check(forked.ok, `fork refused: ${JSON.stringify(forked)}`);
      // Forking records lineage only: no provider work until the fork's first run.
      check(h.store.projections.get('threads', 'thr_fork')!.lineage.parentThreadId === source, 'lineage recorded');
      const forkRun = await send(h, 'thr_fork', 'what was the number?');
      await h.until(() => status(h, forkRun) === 'completed');
      const resolved = h.store.events.readThreadAfter('thr_fork', 0).find((e) => e.type === 'thread.fork-resolved');
      check((resolved?.payload as { strategy?: string } | undefined)?.strategy === 'native_fork', 'resolved by a native Codex fork');
      check(assistantTexts(h, 'thr_fork').at(-1) === 'Fork answer.', 'the fork answered');
      check(assistantTexts(h, source).length === 1, 'the source thread is untouched');
    },
  },
  {
    name: 'steering_restart_fallback',
    withoutNativeSteering: true,
    model: [{ kind: 'hang' }, { kind: 'text', text: 'Restarted answer.' }],
    async drive({ h, cwd, modelAsked }) {
      const threadId = await h.thread({ threadId: 'thr_restart', cwd });
      const runId = await send(h, threadId, 'start slowly');
      await h.until(() => status(h, runId) === 'running');
      await modelAsked(1);
      await send(h, threadId, 'change of plan', 'steer_active');
      await h.until(() => status(h, runId) === 'completed');
      const attempts = h.store.projections.get('runs', runId)!.attempts.map((a) => `${a.reason}:${a.status}`);
      check(JSON.stringify(attempts) === JSON.stringify(['initial:superseded', 'steering_restart:completed']), `a replacement attempt under the same run, got ${attempts}`);
    },
  },
  {
    name: 'queued_turn',
    model: [{ kind: 'text', text: 'A done.', chunks: ['A ', 'done.'], delayMs: 30 }, { kind: 'text', text: 'B done.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_queue', cwd });
      const a = await send(h, threadId, 'A');
      const b = await send(h, threadId, 'B', 'queue_after_active');
      check(h.store.projections.get('runs', b)!.status === 'queued', 'B waits behind A');
      await h.until(() => status(h, b) === 'completed');
      check(h.store.projections.get('runs', a)!.ordinal === 1 && h.store.projections.get('runs', b)!.ordinal === 2, 'A is run 1, B run 2');
    },
  },
  {
    name: 'approval_decline',
    model: [{ kind: 'exec', command: 'echo nope > declined.txt', escalated: true, callId: 'call_decline' }, { kind: 'text', text: 'Understood.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_decline', cwd });
      const runId = await send(h, threadId, 'try it');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const request = h.store.projections.list('requests', threadId)[0]!;
      check((await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'decline' })).ok, 'declined');
      await h.until(() => status(h, runId) === 'completed');
      check(!existsSync(join(cwd, 'declined.txt')), 'the declined command did not run');
    },
  },
  {
    name: 'approval_cancel',
    model: [{ kind: 'exec', command: 'echo nope > cancelled.txt', escalated: true, callId: 'call_cancel' }, { kind: 'text', text: 'Cancelled.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_cancel', cwd });
      const runId = await send(h, threadId, 'try it');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const request = h.store.projections.list('requests', threadId)[0]!;
      check((await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'cancel' })).ok, 'cancelled');
      await h.until(() => ['completed', 'interrupted', 'failed'].includes(status(h, runId) ?? ''));
      check(!existsSync(join(cwd, 'cancelled.txt')), 'the cancelled command did not run');
    },
  },
  {
    name: 'plan_todo',
    model: [{ kind: 'plan', steps: [{ step: 'read the code', status: 'completed' }, { step: 'write the fix', status: 'in_progress' }], callId: 'call_plan' }, { kind: 'text', text: 'Planned.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_plan', cwd });
      const runId = await send(h, threadId, 'plan it');
      await h.until(() => status(h, runId) === 'completed');
      const plans = h.store.projections.list('plans', threadId);
      check(plans.length === 1 && plans[0]!.kind === 'todo_list' && plans[0]!.final, 'a final todo list');
      check(JSON.stringify(plans[0]!.steps.map((x) => x.status)) === JSON.stringify(['completed', 'in_progress']), 'its steps');
      const updates = h.store.projections.list('activities', threadId).filter((a) => a.kind === 'plan.updated');
      check(updates.length === 1 && updates[0]!.runId === runId && updates[0]!.nodeId === plans[0]!.nodeId && updates[0]!.title === '[x] read the code\n[ ] write the fix', `one plan activity (finalizing adds none), got ${JSON.stringify(updates)}`);
    },
  },
  {
    name: 'provider_error',
    model: [{ kind: 'error', status: 500, message: 'the model is on fire' }, { kind: 'text', text: 'Recovered.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_error', cwd });
      const one = await send(h, threadId, 'first');
      await h.until(() => status(h, one) === 'failed');
      const terminal = h.store.events.readThreadAfter(threadId, 0).find((e) => e.type === 'run.terminal')!;
      check(/500|fire|error/i.test(JSON.stringify(terminal.payload)), "the provider's error is visible");
      const two = await send(h, threadId, 'again');
      await h.until(() => status(h, two) === 'completed');
    },
  },
  {
    name: 'provider_crash_recovery',
    model: [{ kind: 'text', text: 'Before the crash.' }, { kind: 'hang' }, { kind: 'text', text: 'Back again.' }],
    async drive({ h, cwd, modelAsked, kill }) {
      const threadId = await h.thread({ threadId: 'thr_crash', cwd });
      const one = await send(h, threadId, 'first');
      await h.until(() => status(h, one) === 'completed');
      const two = await send(h, threadId, 'second');
      await h.until(() => status(h, two) === 'running');
      await modelAsked(2);
      kill(threadId);
      await h.until(() => status(h, two) === 'failed');
      check(h.store.projections.list('sessions', threadId).some((x) => x.status === 'error'), 'the session is marked');
      const three = await send(h, threadId, 'third');
      await h.until(() => status(h, three) === 'completed');
      check(assistantTexts(h, threadId).at(-1) === 'Back again.', 'the next message succeeds on a resumed thread');
    },
  },
  {
    name: 'restart_recovery',
    model: [{ kind: 'exec', command: 'echo hi', escalated: true, callId: 'call_restart' }, { kind: 'text', text: 'Still here.' }],
    async drive({ h, cwd, restart }) {
      const threadId = await h.thread({ threadId: 'thr_reboot', cwd });
      const one = await send(h, threadId, 'needs approval');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const h2 = await restart();
      await h2.runtime.recoverAfterRestart();
      const request = h2.store.projections.list('requests', threadId)[0]!;
      check(request.responseCapability.type === 'not_resumable', 'the request is not resumable');
      check(request.status === 'cancelled' && h2.store.projections.get('threads', threadId)!.pendingRequestCount === 0, `the request ended cancelled, none pending: ${request.status}`);
      const answer = await h2.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' });
      check(!answer.ok && (answer as { error: { code: string } }).error.code === 'not_resumable', 'answering it is refused, typed');
      await h2.until(() => status(h2, one) === 'interrupted');
      const two = await send(h2, threadId, 'carry on');
      await h2.until(() => status(h2, two) === 'completed');
    },
  },
  {
    name: 'thread_rollback',
    model: [{ kind: 'text', text: 'one' }, { kind: 'text', text: 'two' }, { kind: 'text', text: 'after rollback' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_rollback', cwd });
      const file = join(cwd, 'story.txt');
      const one = await send(h, threadId, 'first');
      await h.until(() => status(h, one) === 'running');
      writeFileSync(file, 'version 1\n');
      await h.until(() => status(h, one) === 'completed');
      const two = await send(h, threadId, 'second');
      await h.until(() => status(h, two) === 'running');
      writeFileSync(file, 'version 2\n');
      await h.until(() => status(h, two) === 'completed');
      check((await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).ok, 'rolled back');
      check(readFileSync(file, 'utf8') === 'version 1\n', 'files restored');
      await h.until(() => h.store.outbox.list({ threadId }).filter((e) => e.kind === 'provider.thread.rollback').every((e) => e.status === 'completed'));
      check(status(h, two) === 'rolled_back', 'run 2 rolled back');
      const three = await send(h, threadId, 'third');
      await h.until(() => status(h, three) === 'completed');
      check(h.store.projections.get('runs', three)!.ordinal === 2, 'the next run is run 2 again');
    },
  },
  {
    name: 'apply_patch',
    model: [{ kind: 'patch', patch: '*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+written by apply_patch\n*** End Patch\n', callId: 'call_patch' }, { kind: 'text', text: 'Patched.' }],
    async drive({ h, cwd, live }) {
      const threadId = await h.thread({ threadId: 'thr_patch', cwd });
      const runId = await send(h, threadId, 'add notes');
      await h.until(() => status(h, runId) === 'completed' || h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const pending = h.store.projections.list('requests', threadId).find((r) => r.status === 'pending');
      if (pending) {
        check(pending.kind === 'file_change', `a file-change approval, got ${pending.kind}`);
        check((await h.command({ type: 'runtime-request.respond', requestId: pending.id, decision: 'accept' })).ok, 'approved');
      }
      await h.until(() => status(h, runId) === 'completed');
      if (live) check(existsSync(join(cwd, 'notes.md')) && readFileSync(join(cwd, 'notes.md'), 'utf8').includes('written by apply_patch'), 'the patch was applied');
      const tools = h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'tool_call');
      check(tools.some((n) => n.title === 'apply_patch' && n.status === 'completed'), `an apply_patch tool node, got ${JSON.stringify(tools.map((n) => [n.title, n.status]))}`);
      const files = tools.find((n) => n.title === 'apply_patch')!.detail?.files as { path: string; diff: string }[] | undefined;
      check(files?.length === 1 && files[0]!.path.endsWith('notes.md') && files[0]!.diff.includes('written by apply_patch'), `the file change on the tool node, got ${JSON.stringify(files)}`);
      const checkpoint = h.store.projections.list('checkpoints', threadId).find((c) => c.runOrdinal === 1)!;
      if (live) check(checkpoint.diff?.files === 1, 'the run checkpoint holds the patched file');
      check(h.store.projections.get('runs', runId)!.diff?.includes('+written by apply_patch') === true, "Codex's diff of the turn is on the run");
    },
  },
  {
    name: 'reasoning',
    model: [{ kind: 'text', text: 'Thought it through.', reasoning: ['Weighing the options.', 'Picking the simplest one.'] }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_reasoning', cwd });
      const runId = await send(h, threadId, 'think first');
      await h.until(() => status(h, runId) === 'completed');
      const reasoning = h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'reasoning');
      check(reasoning.length === 1 && reasoning[0]!.status === 'completed' && reasoning[0]!.runId === runId, `one completed reasoning node, got ${JSON.stringify(reasoning)}`);
      const item = h.store.projections.get('turn_items', reasoning[0]!.id)!;
      check(item.kind === 'reasoning' && item.text === 'Weighing the options.\n\nPicking the simplest one.', `the reasoning summary is the node's text, got ${JSON.stringify(item.text)}`);
      const streamed = h.store.events.readThreadAfter(threadId, 0).filter((e) => e.type === 'node.output').map((e) => (e.payload as { delta: string }).delta).join('');
      check(streamed === item.text, `the summary was streamed delta by delta, got ${JSON.stringify(streamed)}`);
      const items = h.store.projections.list('turn_items', threadId).map((i) => i.kind);
      check(items.indexOf('reasoning') < items.indexOf('assistant_message'), `the reasoning comes before the answer: ${items}`);
      check(h.store.events.readThreadAfter(threadId, 0).filter((e) => e.type === 'message.delta').length === 3, 'the answer was streamed word by word');
    },
  },
  {
    name: 'command_output',
    model: [{ kind: 'exec', command: 'echo hello from exec; sleep 1; echo and done', callId: 'call_echo' }, { kind: 'text', text: 'Ran it.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_command', cwd });
      const runId = await send(h, threadId, 'run echo');
      await h.until(() => status(h, runId) === 'completed' || h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const pending = h.store.projections.list('requests', threadId).find((r) => r.status === 'pending');
      if (pending) check((await h.command({ type: 'runtime-request.respond', requestId: pending.id, decision: 'accept' })).ok, 'approved');
      await h.until(() => status(h, runId) === 'completed');
      const tool = h.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'tool_call')!;
      check(tool?.title?.includes('echo hello from exec') && tool.status === 'completed', `a completed command node, got ${JSON.stringify(tool)}`);
      check(tool.detail?.exitCode === 0 && typeof tool.detail.durationMs === 'number' && tool.detail.tool === 'command', `exit code and duration on the node, got ${JSON.stringify(tool.detail)}`);
      const item = h.store.projections.get('turn_items', tool.id)!;
      check(String(item.data.output).includes('hello from exec\n'), `the output on the tool's item, got ${JSON.stringify(item.data)}`);
      const deltas = h.store.events.readThreadAfter(threadId, 0).filter((e) => e.type === 'node.output' && (e.payload as { nodeId: string }).nodeId === tool.id);
      // Codex 0.169 sometimes leaves out a command's first output delta (measured: 3 of 5 direct
      // runs) and puts the whole output on item/completed; what did stream is the output's tail.
      const streamed = deltas.map((e) => (e.payload as { delta: string }).delta).join('');
      check(streamed.length > 0 && String(item.data.output).endsWith(streamed) && streamed.includes('and done'), `the output was streamed, got ${JSON.stringify(streamed)}`);
      const activities = h.store.projections.list('activities', threadId);
      const forTool = activities.filter((a) => a.nodeId === tool.id).map((a) => `${a.kind}:${a.status}`);
      check(JSON.stringify(forTool) === JSON.stringify(['tool.started:null', 'tool.completed:completed']), `tool activities keyed by node, got ${forTool}`);
      check(activities.filter((a) => a.nodeId === tool.id).every((a) => a.runId === runId), 'and by run');
      check(activities.some((a) => a.kind === 'checkpoint.captured' && a.runId === runId), `the run's checkpoint is an activity: ${activities.map((a) => a.kind)}`);
      check(JSON.stringify(activities.map((a) => a.position)) === JSON.stringify(activities.map((_, i) => i)), 'activities are numbered in order');
    },
  },
  {
    name: 'proposed_plan',
    model: [{ kind: 'text', text: 'Here is my plan.\n\n<proposed_plan>\n# Add a greeting\n\n1. Write hello.txt\n2. Check it\n</proposed_plan>\n' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_proposed', cwd, interactionMode: 'plan' });
      const runId = await send(h, threadId, 'plan a greeting');
      await h.until(() => status(h, runId) === 'completed');
      const plans = h.store.projections.list('plans', threadId);
      check(plans.length === 1 && plans[0]!.kind === 'proposed_plan' && plans[0]!.final && plans[0]!.runId === runId, `one final proposed plan, got ${JSON.stringify(plans)}`);
      check(plans[0]!.text === '# Add a greeting\n\n1. Write hello.txt\n2. Check it\n', `the plan's text, got ${JSON.stringify(plans[0]!.text)}`);
      const deltas = h.store.events.readThreadAfter(threadId, 0).filter((e) => e.type === 'plan.delta');
      check(deltas.length > 1 && deltas.map((e) => (e.payload as { delta: string }).delta).join('') === plans[0]!.text, 'streamed delta by delta');
      check(h.store.projections.get('turn_items', plans[0]!.id)?.kind === 'plan', 'a plan turn item');
      check(assistantTexts(h, threadId).at(-1) === 'Here is my plan.\n\n', 'the message keeps the text outside the plan block');
      const activity = h.store.projections.list('activities', threadId).filter((a) => a.kind === 'plan.updated');
      check(activity.length === 1 && activity[0]!.status === 'proposed_plan' && activity[0]!.title === plans[0]!.text, `one plan activity (the finished plan), got ${JSON.stringify(activity)}`);
    },
  },
  {
    name: 'web_search',
    model: [{ kind: 'web_search', query: 'baton orchestration runtime', text: 'Searched.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_search', cwd });
      const runId = await send(h, threadId, 'search the web');
      await h.until(() => status(h, runId) === 'completed');
      const tool = h.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'tool_call');
      check(tool?.title === 'baton orchestration runtime' && tool.status === 'completed', `a completed web search node, got ${JSON.stringify(tool)}`);
      check(tool.detail?.tool === 'web_search' && (tool.detail.action as { type?: string } | null)?.type === 'search', `its query and action, got ${JSON.stringify(tool.detail)}`);
    },
  },
  {
    name: 'file_change_approval',
    model: [{ kind: 'patch', patch: '*** Begin Patch\n*** Add File: approved.md\n+approved\n*** End Patch\n', callId: 'call_patch_ro' }, { kind: 'text', text: 'Written.' }],
    async drive({ h, cwd, live }) {
      // Read-only: Codex asks before it applies a patch.
      const threadId = await h.thread({ threadId: 'thr_patch_ro', cwd, runtimeMode: 'read_only' });
      const runId = await send(h, threadId, 'add a file');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const request = h.store.projections.list('requests', threadId)[0]!;
      check(request.kind === 'file_change', `a file-change approval, got ${request.kind}`);
      const tool = h.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'tool_call' && n.title === 'apply_patch');
      check(tool && h.store.projections.get('graph_nodes', request.nodeId)?.parentNodeId === tool.id, 'the approval hangs under its apply_patch node');
      check((await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' })).ok, 'approved');
      await h.until(() => status(h, runId) === 'completed');
      if (live) check(readFileSync(join(cwd, 'approved.md'), 'utf8') === 'approved\n', 'the approved patch was applied');
      check(h.store.projections.get('graph_nodes', tool.id)!.status === 'completed', 'the patch node completed');
    },
  },
  {
    name: 'mcp_tool_call',
    // A stdio MCP server in the Codex home; its tool is deferred, so the model finds it with tool_search first.
    mcpServers: { echo: { command: process.execPath, args: [fileURLToPath(new URL('../fixtures/mcp/echo-server.mjs', import.meta.url))] } },
    model: [{ kind: 'tool_search', query: 'echo' }, { kind: 'call', namespace: 'mcp__echo', name: 'echo', args: { text: 'hi' }, callId: 'call_mcp_echo' }, { kind: 'text', text: 'Echoed.' }],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_mcp', cwd });
      const runId = await send(h, threadId, 'echo hi through MCP');
      await h.until(() => status(h, runId) === 'completed');
      const tool = h.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'tool_call');
      check(tool?.title === 'echo/echo' && tool.status === 'completed', `a completed MCP tool node, got ${JSON.stringify(tool)}`);
      const d = tool.detail ?? {};
      check(d.tool === 'mcp' && d.server === 'echo' && d.name === 'echo' && JSON.stringify(d.arguments) === '{"text":"hi"}', `the call, got ${JSON.stringify(d)}`);
      check(JSON.stringify((d.result as { content?: unknown } | null)?.content) === '[{"type":"text","text":"echo: hi"}]' && d.error === null, `its result, got ${JSON.stringify(d)}`);
      const activities = h.store.projections.list('activities', threadId).filter((a) => a.nodeId === tool.id).map((a) => a.kind);
      check(JSON.stringify(activities) === '["tool.started","tool.completed"]', `tool activities, got ${activities}`);
    },
  },
];
