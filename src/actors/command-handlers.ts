import type { CommandOf, CommandType, Command } from '../domain/commands.js';
import { BatonError } from '../domain/errors.js';
import type { ProviderKind } from '../domain/statuses.js';
import { threadSettings, type ThreadSetting } from '../domain/thread-settings.js';
import { targetsActiveRun, type DispatchCapabilities } from '../machines/thread-supervisor.machine.js';
import { isSettled } from '../machines/status-actions.js';
import type { Store } from '../persistence/store.js';
import type { ForkOrigin } from '../domain/entities.js';
import { projectionNames } from '../domain/projections.js';
import { dispatchCapabilities, type CapabilitySource } from './policy.js';
import type { EntityContext } from './entity-machines.js';
import type { StepContext } from './step-context.js';

export interface HandlerEnv {
  capabilities: CapabilitySource;
  defaultProvider: ProviderKind;
  /** The providers this Baton can run: a thread on any other is refused at the command. */
  providers: readonly ProviderKind[];
  /** The thread settings each provider carries to its agent: setting any other is refused. */
  appliedSettings(provider: ProviderKind): readonly ThreadSetting[];
  /** The agents a provider runs (the ACP provider's, by name): a thread's `acpAgent` must be one of them. */
  agents(provider: ProviderKind): readonly string[];
  /** Committed state of other threads (a fork reads its source; it never writes there). */
  store: Store;
}

type Handler<K extends CommandType> = (
  thread: StepContext,
  command: CommandOf<K>,
  env: HandlerEnv,
) => Record<string, unknown>;

const supervisorOf = (thread: StepContext) => ({ kind: 'thread_supervisor' as const, id: thread.threadId });

type SupervisorContext = EntityContext<'thread_supervisor'>;

function supervisorContext(thread: StepContext): SupervisorContext {
  const context = thread.context(supervisorOf(thread));
  if (!context) throw new BatonError('not_found', `no thread ${thread.threadId}`);
  return context;
}

/**
 * A new thread's id (which a client may choose) must be new to the whole store, not only
 * to its own thread: entity rows and read models are keyed by id alone, so a thread named
 * after a run or a provider thread would take over that row.
 */
function claimNewThreadId(thread: StepContext, store: Store): void {
  const id = thread.threadId;
  const holder = store.entities.get(id)?.kind ?? projectionNames.find((p) => store.projections.get(p, id) !== null);
  if (holder || thread.state(supervisorOf(thread))) {
    throw new BatonError(
      'conflict',
      `id ${id} is already in use${holder ? ` (${holder})` : ''}: a new thread needs an id of its own`,
      { id, heldBy: holder ?? 'thread_supervisor' },
    );
  }
}

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
    claimNewThreadId(thread, env.store);
    thread.spawn('thread_supervisor', thread.threadId, {
      threadId: thread.threadId,
      title: c.title ?? 'New thread',
      provider,
      model: c.model ?? null,
      runtimeMode: c.runtimeMode ?? 'workspace_write',
      interactionMode: c.interactionMode ?? 'default',
      acpAgent: c.acpAgent ?? null,
      cwd: c.cwd,
      parentThreadId: null,
      relationshipToParent: null,
      rootThreadId: thread.threadId,
      providerThreadId: thread.current.newId('providerThread'),
      capabilities: dispatchCapabilities(env.capabilities(provider, c.acpAgent)),
      createdAt: thread.current.at,
    });
    return { threadId: thread.threadId };
  },

  'thread.message.send': (thread, c, env) => {
    const sup = supervisorContext(thread);
    const mode = c.dispatchMode ?? 'auto';
    requireSameProvider(sup, c.provider);
    requireApplied(sup.provider, c, env);
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
        model: c.model ?? sup.model,
        targetRunId: c.targetRunId ?? null,
      },
      { mustAccept: true },
    );
    // A steer attaches the message to the active run; anything else made a new run.
    const created = thread.state({ kind: 'run', id: runId });
    const after = supervisorContext(thread);
    return created
      ? { runId, messageId, dispatched: after.activeRunId === runId ? 'started' : 'queued' }
      : { runId: sup.activeRunId, messageId, dispatched: 'steered' };
  },

  'run.interrupt': (thread, c) => {
    const run = thread.require({ kind: 'run', id: c.runId });
    const ctx = run.context;
    if (isSettled(run)) return { runId: c.runId, status: ctx.status, alreadyTerminal: true };
    thread.deliver(
      supervisorOf(thread),
      { type: 'INTERRUPT', runId: c.runId, holdQueue: c.holdQueue ?? false },
      { mustAccept: true },
    );
    return { runId: c.runId, holdQueue: c.holdQueue ?? false };
  },

  'thread.stop': (thread) => {
    supervisorContext(thread);
    thread.deliver(supervisorOf(thread), { type: 'STOP' }, { mustAccept: true });
    return { threadId: thread.threadId, queueHeld: true };
  },

  'runtime-request.respond': (thread, c) => {
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
    const wantsAnswers = ctx.kind === 'user_input';
    if (wantsAnswers ? !c.answers || c.decision : !c.decision || c.answers) {
      throw new BatonError(
        'invalid_command',
        wantsAnswers
          ? `request ${c.requestId} asks questions: send answers (and no decision)`
          : `request ${c.requestId} needs a decision (and no answers)`,
      );
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
    requireSameProvider(sup, changes.provider);
    requireAcpAgent(sup.provider, changes.acpAgent, 'update', env);
    requireSameDispatch(sup, changes.acpAgent, env);
    requireApplied(sup.provider, changes, env);
    thread.deliver(supervisorOf(thread), { type: 'SETTINGS_UPDATE', changes }, { mustAccept: true });
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

  /**
   * A fork is a new app thread with lineage and a pending source point; no provider work
   * happens now. Its first run resolves the source: a native provider fork at that turn
   * when the provider can, else (not built yet) portable context.
   */
  'thread.fork': (thread, c, env) => {
    if (c.source.type !== 'run') unsupported(`forking from a ${c.source.type}`);
    claimNewThreadId(thread, env.store);
    const source = env.store.projections.get('threads', c.sourceThreadId);
    const run = env.store.projections.get('runs', c.source.runId);
    if (!source || !run || run.threadId !== c.sourceThreadId || c.source.threadId !== c.sourceThreadId) {
      throw new BatonError('not_found', `no run ${c.source.runId} on thread ${c.sourceThreadId}`);
    }
    // Stable fork points only: a finished run (an interrupted or failed one with its checkpoint).
    const stable =
      run.status === 'completed' || ((run.status === 'interrupted' || run.status === 'failed') && run.checkpointId);
    if (!stable)
      throw new BatonError('invalid_transition', `run ${run.id} is ${run.status}: fork from a finished run`, {
        status: run.status,
      });
    thread.spawn('thread_supervisor', thread.threadId, {
      threadId: thread.threadId,
      title: c.title ?? `${source.title} (fork)`,
      provider: source.provider,
      model: source.model,
      runtimeMode: source.runtimeMode,
      interactionMode: source.interactionMode,
      acpAgent: source.acpAgent,
      cwd: source.workspace.cwd,
      parentThreadId: source.id,
      relationshipToParent: 'fork',
      rootThreadId: source.lineage.rootThreadId,
      providerThreadId: thread.current.newId('providerThread'),
      capabilities: dispatchCapabilities(env.capabilities(source.provider, source.acpAgent)),
      createdAt: thread.current.at,
      forkOrigin: {
        sourceThreadId: source.id,
        sourceRunId: run.id,
        sourceProvider: run.provider,
        sourceProviderThreadId: run.providerThreadId,
        sourceAttemptId: run.activeAttemptId,
      } satisfies ForkOrigin,
    });
    return { threadId: thread.threadId, forkedFrom: { threadId: source.id, runId: run.id, runOrdinal: run.ordinal } };
  },
  'thread.merge_back': () => unsupported('thread.merge_back'),
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

function unsupported(type: string): never {
  throw new BatonError('unsupported', `${type} is not built yet in this version of Baton`);
}

function requireAvailable(provider: ProviderKind, env: HandlerEnv): void {
  if (!env.providers.includes(provider)) {
    throw new BatonError(
      'unsupported',
      `no ${provider} provider is available in this Baton yet (available: ${env.providers.join(', ')})`,
      { provider, available: env.providers },
    );
  }
}

/** A setting the provider does not carry to its agent is refused, not stored and silently ignored. */
function requireApplied(provider: ProviderKind, given: Partial<Record<ThreadSetting, unknown>>, env: HandlerEnv): void {
  const applied = env.appliedSettings(provider);
  const ignored = threadSettings.filter((s) => given[s] !== undefined && given[s] !== null && !applied.includes(s));
  if (ignored.length) {
    throw new BatonError(
      'unsupported',
      `the ${provider} provider does not apply ${ignored.join(', ')} yet in this version of Baton`,
      { provider, settings: ignored },
    );
  }
}

/**
 * `acpAgent` names the ACP agent a thread runs: an ACP thread is created with one, no other
 * thread has one, and it must be an agent the ACP provider runs, so an unknown name is
 * refused here rather than failing the thread's first run.
 */
function requireAcpAgent(
  provider: ProviderKind,
  acpAgent: string | undefined,
  by: 'create' | 'update',
  env: HandlerEnv,
): void {
  if (provider !== 'acp') {
    if (acpAgent === undefined) return;
    throw new BatonError(
      'invalid_command',
      `acpAgent names the agent of a thread with provider acp; this thread's provider is ${provider}`,
      { provider },
    );
  }
  const known = env.agents('acp');
  if (acpAgent === undefined) {
    if (by === 'update') return;
    throw new BatonError(
      'invalid_command',
      `a thread with provider acp needs acpAgent, the ACP agent it runs (known: ${known.join(', ') || 'none'})`,
      { known },
    );
  }
  if (!known.includes(acpAgent))
    throw new BatonError(
      'invalid_payload',
      `no ACP agent named ${acpAgent} in this Baton (known: ${known.join(', ') || 'none'}; more are registered with BATON_ACP_AGENTS)`,
      { acpAgent, known },
    );
}

/**
 * The supervisor decides dispatch (steer, restart, queue, rollback) by the flags it was
 * created with: another agent whose flags differ would be dispatched by the old agent's, so
 * that switch is refused rather than half applied. Agents whose flags agree switch freely.
 */
function requireSameDispatch(sup: SupervisorContext, acpAgent: string | undefined, env: HandlerEnv): void {
  if (acpAgent === undefined || acpAgent === sup.acpAgent) return;
  const next = dispatchCapabilities(env.capabilities(sup.provider, acpAgent));
  const differ = (Object.keys(next) as (keyof DispatchCapabilities)[]).filter((k) => next[k] !== sup.capabilities[k]);
  if (differ.length)
    throw new BatonError(
      'unsupported',
      `switching thread ${sup.threadId} to ACP agent ${acpAgent} changes how its messages are dispatched (${differ.join(', ')}); that is not built yet in this version of Baton: start a new thread on it`,
      { acpAgent, from: sup.acpAgent ?? null, flags: differ },
    );
}

/** A thread keeps its provider: moving it to another one needs a handoff, which is not built yet. */
function requireSameProvider(sup: SupervisorContext, provider: ProviderKind | undefined): void {
  if (provider && provider !== sup.provider) {
    throw new BatonError(
      'unsupported',
      `switching thread ${sup.threadId} from ${sup.provider} to ${provider} needs a provider handoff, which is not built yet in this version of Baton`,
      { provider: sup.provider, requested: provider },
    );
  }
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
