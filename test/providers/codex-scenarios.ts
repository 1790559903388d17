import type { ModelTurn } from '../../src/providers/model/scripted-model-server.js';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../support/runtime.js';
import { declaredCapabilities } from '../../src/providers/declared-capabilities.js';
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
  /** Runs with native steering switched off by capability (to exercise the fallback). */
  withoutNativeSteering?: boolean;
  drive(ctx: ScenarioContext): Promise<void>;
}

/** Declared capabilities with native steering off: the steering fallback's scenario. */
export const withoutNativeSteering = (p: ProviderKind): ProviderCapabilities => ({
  ...declaredCapabilities[p],
  turns: { ...declaredCapabilities[p].turns, supportsActiveSteering: false },
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
      check(status(h, runId) === 'waiting', 'the run waits for the answer');
      check((await h.command({ type: 'runtime-request.respond', requestId: request.id, answers: { lang: 'TypeScript' } })).ok, 'answered');
      await h.until(() => status(h, runId) === 'completed');
      check(assistantTexts(h, threadId).at(-1) === 'TypeScript it is.', 'the answer reached the model');
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
      const checkpoint = h.store.projections.list('checkpoints', threadId).find((c) => c.runOrdinal === 1)!;
      if (live) check(checkpoint.diff?.files === 1, 'the run checkpoint holds the patched file');
      check(h.store.projections.get('runs', runId)!.diff?.includes('+written by apply_patch') === true, "Codex's diff of the turn is on the run");
    },
  },
];
