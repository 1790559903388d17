import type { ProviderCapabilities } from '../../../../src/domain/capabilities.js';
import { check, type ProviderScenario } from '../scenario.js';
import { send, status, assistantTexts } from '../baton.js';

/** The declared capabilities with native steering off: the steering fallback's scenario. */
const withoutNativeSteering = (declared: ProviderCapabilities): ProviderCapabilities => ({
  ...declared,
  turns: { ...declared.turns, supportsActiveSteering: false },
});

/** Turns: answering, follow-ups, interrupting, steering, queueing, model errors. */
export const turnScenarios: ProviderScenario[] = [
  {
    name: 'simple',
    needs: ['turns.emitsTurnCompleted', 'streaming.emitsMessageCompleted', 'checkpointing.appCanCheckpointFilesystem'],
    model: [{ kind: 'text', text: 'Hello from Codex, offline.' }],
    async drive({ h, cwd, declares }) {
      const threadId = await h.thread({ threadId: 'thr_simple', cwd });
      const runId = await send(h, threadId, 'say hello');
      await h.until(() => status(h, runId) === 'completed');
      const run = h.store.projections.get('runs', runId)!;
      check(run.ordinal === 1 && run.attempts.length === 1, 'one run, one attempt');
      check(
        h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'root_turn').length === 1,
        'one root node',
      );
      // A provider that names no turns (ACP) has none to bind.
      if (declares('turns.exposesNativeTurnId'))
        check(h.store.bindings.forApp(run.attempts[0]!.id).length === 1, 'one provider turn bound');
      check(
        JSON.stringify(assistantTexts(h, threadId)) === JSON.stringify(['Hello from Codex, offline.']),
        `one assistant message, got ${JSON.stringify(assistantTexts(h, threadId))}`,
      );
      check(
        h.store.projections
          .list('checkpoints', threadId)
          .filter((c) => c.scopeKind === 'root_run' && c.runOrdinal === 1).length === 1,
        'one root checkpoint',
      );
    },
  },
  {
    name: 'multi_turn',
    needs: ['turns.emitsTurnCompleted'],
    model: [
      { kind: 'text', text: 'First answer.' },
      { kind: 'text', text: 'Second answer.' },
    ],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_multi', cwd });
      const one = await send(h, threadId, 'first');
      await h.until(() => status(h, one) === 'completed');
      const two = await send(h, threadId, 'second');
      await h.until(() => status(h, two) === 'completed');
      check(h.store.projections.get('runs', two)!.ordinal === 2, 'the follow-up is run 2');
      check(
        JSON.stringify(assistantTexts(h, threadId)) === JSON.stringify(['First answer.', 'Second answer.']),
        'both answers',
      );
    },
  },
  {
    name: 'turn_interrupt',
    needs: ['turns.emitsTurnStarted', 'turns.supportsInterrupt'],
    model: [{ kind: 'hang' }],
    async drive({ h, cwd, modelAsked }) {
      const threadId = await h.thread({ threadId: 'thr_interrupt', cwd });
      const runId = await send(h, threadId, 'take your time');
      await h.until(() => status(h, runId) === 'running');
      await modelAsked(1);
      check((await h.command({ type: 'run.interrupt', runId })).ok, 'interrupt accepted');
      await h.until(() => status(h, runId) === 'interrupted');
      const types = h.store.events.readThreadAfter(threadId, 0).map((e) => e.type);
      check(
        types.includes('run.interrupt-acknowledged') &&
          types.indexOf('run.interrupt-acknowledged') < types.indexOf('run.terminal'),
        'acknowledged before the end',
      );
    },
  },
  {
    name: 'message_steering',
    needs: ['turns.supportsActiveSteering'],
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
    name: 'steering_restart_fallback',
    needs: ['turns.supportsSteeringByInterruptRestart'],
    adjustCapabilities: withoutNativeSteering,
    model: [{ kind: 'hang' }, { kind: 'text', text: 'Restarted answer.' }],
    async drive({ h, cwd, modelAsked }) {
      const threadId = await h.thread({ threadId: 'thr_restart', cwd });
      const runId = await send(h, threadId, 'start slowly');
      await h.until(() => status(h, runId) === 'running');
      await modelAsked(1);
      await send(h, threadId, 'change of plan', 'steer_active');
      await h.until(() => status(h, runId) === 'completed');
      const attempts = h.store.projections.get('runs', runId)!.attempts.map((a) => `${a.reason}:${a.status}`);
      check(
        JSON.stringify(attempts) === JSON.stringify(['initial:superseded', 'steering_restart:completed']),
        `a replacement attempt under the same run, got ${attempts}`,
      );
    },
  },
  {
    name: 'queued_turn',
    needs: ['turns.emitsTurnCompleted'],
    model: [
      { kind: 'text', text: 'A done.', chunks: ['A ', 'done.'], delayMs: 30 },
      { kind: 'text', text: 'B done.' },
    ],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_queue', cwd });
      const a = await send(h, threadId, 'A');
      const b = await send(h, threadId, 'B', 'queue_after_active');
      check(h.store.projections.get('runs', b)!.status === 'queued', 'B waits behind A');
      await h.until(() => status(h, b) === 'completed');
      check(
        h.store.projections.get('runs', a)!.ordinal === 1 && h.store.projections.get('runs', b)!.ordinal === 2,
        'A is run 1, B run 2',
      );
    },
  },
  {
    name: 'provider_error',
    needs: ['turns.emitsTurnCompleted'],
    model: [
      { kind: 'error', status: 500, message: 'the model is on fire' },
      { kind: 'text', text: 'Recovered.' },
    ],
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
];
