import type { CommandOf, CommandType, Command } from '../domain/commands.js';
import { BatonError } from '../domain/errors.js';
import { refuseUnfitAnswers } from '../domain/answers.js';
import type { Question } from '../domain/entities.js';
import { targetsActiveRun } from '../machines/thread-supervisor.machine.js';
import { isSettled } from '../machines/status-actions.js';
import { dispatchCapabilities } from './policy.js';
import {
  claimNewThreadId,
  requireAcpAgent,
  requireAvailable,
  requireApplied,
  supervisorContext,
  supervisorOf,
  type Handler,
  type HandlerEnv,
} from './command-checks.js';
import { queueDelegatedStop } from './delegated-tasks-stop.js';
import { delegatedLineage, delegatingParent, recordSubagentSpawn } from './delegated-threads.js';
import { forkThread } from './fork-command.js';
import { implementPlan } from './plan-implement-command.js';
import { providerSwitch } from './provider-switch.js';
import { recordMergeBack } from './merge-back-command.js';
import type { StepContext } from './step-context.js';

export type { HandlerEnv } from './command-checks.js';

/**
 * Each command becomes events for the thread's actors, with every id it needs allocated
 * here, outside the machines. A command the machines cannot take in their current state
 * is refused with `invalid_transition` and changes nothing.
 */
export const commandHandlers: { [K in CommandType]: Handler<K> } = {
  'thread.create': (thread, c, env) => {
    const provider = c.provider ?? env.defaultProvider;
    requireAvailable(provider, env);
    requireAcpAgent(provider, c.acpAgent, 'create', env);
    requireApplied(provider, c, env);
    // A delegated thread: never broader than its parent (see delegated-threads.ts).
    const parent = c.parentThreadId ? delegatingParent(c.parentThreadId, c, env.store) : null;
    claimNewThreadId(thread, env.store);
    thread.spawn('thread_supervisor', thread.threadId, {
      threadId: thread.threadId,
      title: c.title ?? 'New thread',
      provider,
      model: c.model ?? null,
      runtimeMode: c.runtimeMode ?? parent?.runtimeMode ?? 'workspace_write',
      interactionMode: c.interactionMode ?? parent?.interactionMode ?? 'default',
      acpAgent: c.acpAgent ?? null,
      cwd: c.cwd,
      ...delegatedLineage(thread.threadId, parent),
      providerThreadId: thread.current.newId('providerThread'),
      capabilities: dispatchCapabilities(env.capabilities(provider, c.acpAgent)),
      createdAt: thread.current.at,
    });
    if (parent) recordSubagentSpawn(thread, parent, provider, env.store);
    return { threadId: thread.threadId };
  },

  'thread.message.send': (thread, c, env) => {
    const before = supervisorContext(thread);
    const switching = providerSwitch(thread, before, c, env);
    if (!switching && c.acpAgent !== undefined)
      throw new BatonError(
        'invalid_command',
        "a message's acpAgent names the agent of a switch to provider acp; change this thread's agent with thread.settings.update",
        { provider: before.provider },
      );
    requireApplied(switching?.changes.provider ?? before.provider, c, env);
    let mode = c.dispatchMode ?? 'auto';
    if ((switching || c.mergeBackFromThreadId) && before.activeRunId) {
      // The active run stays as it is: a message for another provider, or with a fork's work, is a run of its own.
      const on = `${before.provider}${before.acpAgent ? ` ${before.acpAgent}` : ''}`;
      const why = switching ? `switches provider or agent (the active run is on ${on})` : 'merges a fork back';
      if (mode !== 'auto' && mode !== 'queue_after_active')
        throw new BatonError(
          'invalid_command',
          `a message that ${why} starts a run of its own: it cannot ${mode} the active run`,
          { dispatchMode: mode },
        );
      mode = 'queue_after_active';
    }
    if (switching) thread.deliver(supervisorOf(thread), switching, { mustAccept: true });
    const merged = c.mergeBackFromThreadId ? recordMergeBack(thread, c.mergeBackFromThreadId, env) : null;
    const sup = supervisorContext(thread);
    if (c.targetRunId) {
      if (mode !== 'steer_active' && mode !== 'restart_active') {
        throw new BatonError(
          'invalid_command',
          `targetRunId names the run to steer: send it with dispatchMode steer_active or restart_active, not ${mode}`,
        );
      }
      if (!targetsActiveRun(sup, c.targetRunId)) {
        const why =
          sup.activeRunId === c.targetRunId
            ? 'is finalizing and can no longer be steered'
            : `is not the active run (active: ${sup.activeRunId ?? 'none'})`;
        throw new BatonError('conflict', `run ${c.targetRunId} ${why}`, {
          targetRunId: c.targetRunId,
          activeRunId: sup.activeRunId,
        });
      }
    }
    const runId = thread.current.newId('run');
    const messageId = thread.current.newId('message');
    thread.deliver(
      supervisorOf(thread),
      {
        type: 'SEND',
        runId,
        messageId,
        rootNodeId: thread.current.newId('node'),
        attemptId: thread.current.newId('attempt'),
        text: c.text,
        mode,
        provider: sup.provider,
        model: switching ? sup.model : (c.model ?? sup.model),
        targetRunId: c.targetRunId ?? null,
      },
      { mustAccept: true },
    );
    // A steer attaches the message to the active run; anything else made a new run.
    const created = thread.state({ kind: 'run', id: runId });
    const after = supervisorContext(thread);
    const mergeBack = merged ? { mergeBack: { transferId: merged.transferId } } : {};
    return created
      ? { runId, messageId, dispatched: after.activeRunId === runId ? 'started' : 'queued', ...mergeBack }
      : { runId: sup.activeRunId, messageId, dispatched: 'steered', ...mergeBack };
  },

  'run.interrupt': (thread, c, env) => {
    const run = thread.require({ kind: 'run', id: c.runId });
    const ctx = run.context;
    if (isSettled(run)) return { runId: c.runId, status: ctx.status, alreadyTerminal: true };
    thread.deliver(
      supervisorOf(thread),
      { type: 'INTERRUPT', runId: c.runId, holdQueue: c.holdQueue ?? false },
      { mustAccept: true },
    );
    // The Stop button: the threads it delegated stop too, after commit (delegated-tasks-stop.ts).
    if (c.holdQueue) {
      queueDelegatedStop(thread, env.store, 'interrupt');
      stopAgentWork(thread, env);
    }
    return { runId: c.runId, holdQueue: c.holdQueue ?? false };
  },

  'thread.stop': (thread, _c, env) => {
    supervisorContext(thread);
    thread.deliver(supervisorOf(thread), { type: 'STOP' }, { mustAccept: true });
    queueDelegatedStop(thread, env.store, 'stop');
    stopAgentWork(thread, env);
    return { threadId: thread.threadId, queueHeld: true };
  },

  'runtime-request.respond': (thread, c, env) => {
    const ctx = thread.require({ kind: 'runtime_request', id: c.requestId }).context;
    if (ctx.notResumableReason !== null) {
      throw new BatonError(
        'not_resumable',
        `request ${c.requestId} can no longer be answered: ${ctx.notResumableReason}`,
        { requestId: c.requestId, reason: ctx.notResumableReason },
      );
    }
    if (ctx.status !== 'pending')
      throw new BatonError('conflict', `request ${c.requestId} is already ${ctx.status}`, { status: ctx.status });
    if (ctx.kind === 'user_input') {
      // Questions are answered, or declined (decline, cancel): the agent is told no answer comes.
      const declined = c.decision === 'decline' || c.decision === 'cancel';
      if (c.answers ? c.decision : !declined)
        throw new BatonError(
          'invalid_command',
          `request ${c.requestId} asks questions: send answers, or the decision decline or cancel (not both)`,
        );
      const asked = askedQuestions(env.store, ctx.threadId, ctx.nodeId);
      if (c.answers && asked) refuseUnfitAnswers(asked, c.answers);
    } else if (!c.decision || c.answers) {
      throw new BatonError('invalid_command', `request ${c.requestId} needs a decision (and no answers)`);
    }
    thread.deliver(
      { kind: 'runtime_request', id: c.requestId },
      { type: 'RESPOND', decision: c.decision ?? null, answers: c.answers ?? null },
      { mustAccept: true },
    );
    // Resolved only once the provider takes the answer (the respond effect).
    return { requestId: c.requestId, status: 'answering' };
  },

  'queued-run.reorder': (thread, c) => {
    thread.deliver(supervisorOf(thread), { type: 'REORDER', order: c.order }, { mustAccept: true });
    return { order: c.order };
  },

  'queued-run.cancel': (thread, c) => {
    thread.deliver(supervisorOf(thread), { type: 'CANCEL_QUEUED', runId: c.runId }, { mustAccept: true });
    return { runId: c.runId, status: 'cancelled' };
  },

  'queued-message.promote': (thread, c) => {
    const run = thread.require({ kind: 'run', id: c.runId }).context;
    thread.deliver(
      supervisorOf(thread),
      {
        type: 'PROMOTE',
        runId: c.runId,
        messageId: run.userMessageId,
        text: run.text,
        attemptId: thread.current.newId('attempt'),
        rootNodeId: thread.current.newId('node'),
      },
      { mustAccept: true },
    );
    return { runId: supervisorContext(thread).activeRunId, promotedRunId: c.runId };
  },

  /** Each change applies from the next run on: the run that starts next sends it to the provider. */
  'thread.settings.update': (thread, c, env) => {
    const { commandId: _c, type: _t, threadId: _id, ...changes } = c;
    // An update that names nothing would be acknowledged and change nothing.
    if (Object.values(changes).every((v) => v === undefined))
      throw new BatonError('invalid_command', 'thread.settings.update names no setting to change');
    const sup = supervisorContext(thread);
    const { cleanContext: _clean, ...settings } = changes;
    const switching = providerSwitch(thread, sup, changes, env);
    if (switching) {
      requireApplied(switching.changes.provider!, settings, env);
      thread.deliver(
        supervisorOf(thread),
        { ...switching, changes: { ...settings, ...switching.changes } },
        { mustAccept: true },
      );
      return { threadId: thread.threadId, provider: switching.changes.provider };
    }
    requireAcpAgent(sup.provider, changes.acpAgent, 'update', env);
    requireApplied(sup.provider, settings, env);
    thread.deliver(supervisorOf(thread), { type: 'SETTINGS_UPDATE', changes: settings }, { mustAccept: true });
    return { threadId: thread.threadId };
  },

  'thread.archive': (thread) => {
    thread.deliver(supervisorOf(thread), { type: 'ARCHIVE' }, { mustAccept: true });
    return { threadId: thread.threadId, status: 'archived' };
  },

  'thread.delete': (thread) => {
    thread.deliver(supervisorOf(thread), { type: 'DELETE' }, { mustAccept: true });
    return { threadId: thread.threadId, status: 'deleted' };
  },

  'thread.fork': forkThread,
  'plan.implement': implementPlan,
  'thread.merge_back': (thread, c, env) => {
    // With files, the fork's changes are applied before the step: see merge-back-files.ts.
    if (c.files) runByTheRuntime('thread.merge_back with files');
    return recordMergeBack(thread, c.fromThreadId, env);
  },
  // Rollbacks restore files before their step: see rollback.ts.
  'rollback.toRun': () => runByTheRuntime('rollback.toRun'),
  'rollback.node': () => runByTheRuntime('rollback.node'),
};

/** Rollbacks restore files before their step, so `Runtime.dispatch` runs them itself; reaching this is a bug. */
function runByTheRuntime(type: string): never {
  throw new BatonError(
    'internal',
    `${type} runs through Runtime.dispatch (files are restored before its step), not as a plain handler`,
  );
}

/** Runs a parsed command's handler; the command type picks it. */
export function handleCommand(thread: StepContext, command: Command, env: HandlerEnv): Record<string, unknown> {
  return handleOf(command.type, command, thread, env);
}

/** The handler table indexed by the command's own type, so the handler and the command agree. */
function handleOf<K extends CommandType>(
  type: K,
  command: CommandOf<K>,
  thread: StepContext,
  env: HandlerEnv,
): Record<string, unknown> {
  return commandHandlers[type](thread, command, env);
}

/**
 * A Stop ends the agent's own work that outlives its runs too (Claude's background subagents),
 * where the provider can close its subagents: a `provider.turn.interrupt` with no attempt and
 * the reason `stop_subagents`, after commit. Runs queued for turns the agent began of its own
 * are cancelled, so nothing of the agent's restarts the stopped thread.
 */
function stopAgentWork(thread: StepContext, env: HandlerEnv): void {
  const sup = supervisorContext(thread);
  for (const runId of sup.queue) {
    if (thread.current.view.get('runs', runId)?.origin?.kind !== 'agent_turn') continue;
    thread.deliver(supervisorOf(thread), {
      type: 'CANCEL_QUEUED',
      runId,
      reason: "the thread was stopped: the agent's own turn is not taken",
    });
  }
  if (!env.capabilities(sup.provider, sup.acpAgent).subagents.canCloseSubagents) return;
  thread.current.addEffect(
    {
      kind: 'provider.turn.interrupt',
      provider: sup.provider,
      runId: null,
      nodeId: null,
      payload: { attemptId: null, reason: 'stop_subagents' },
    },
    sup.provider,
  );
}

/** The questions a request asked (its node's questions artifact); null when its agent sent no structured questions. */
function askedQuestions(store: HandlerEnv['store'], threadId: string, nodeId: string): Question[] | null {
  return (
    store.projections.list('plans', threadId).find((p) => p.kind === 'questions' && p.nodeId === nodeId)?.questions ??
    null
  );
}
