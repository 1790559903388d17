import type { CommandOf, CommandType, Command } from '../domain/commands.js';
import { BatonError } from '../domain/errors.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { RunContext } from '../machines/run.machine.js';
import type { RuntimeRequestContext } from '../machines/runtime-request.machine.js';
import type { ThreadSupervisorContext } from '../machines/thread-supervisor.machine.js';
import { dispatchCapabilities, type CapabilitySource } from './policy.js';
import type { ThreadActor } from './thread-actor.js';

export interface HandlerEnv {
  capabilities: CapabilitySource;
  defaultProvider: ProviderKind;
}

type Handler<K extends CommandType> = (thread: ThreadActor, command: CommandOf<K>, env: HandlerEnv) => Record<string, unknown>;

const supervisorOf = (thread: ThreadActor) => ({ kind: 'thread_supervisor' as const, id: thread.threadId });

function supervisorContext(thread: ThreadActor): ThreadSupervisorContext {
  const snap = thread.snapshot(supervisorOf(thread));
  if (!snap) throw new BatonError('not_found', `no thread ${thread.threadId}`);
  return snap.context as ThreadSupervisorContext;
}

/**
 * Each command becomes events for the thread's actors, with every id it needs allocated
 * here, outside the machines. A command the machines cannot take in their current state
 * is refused with `invalid_transition` and changes nothing.
 */
export const commandHandlers: { [K in CommandType]: Handler<K> } = {
  'thread.create': (thread, c, env) => {
    if (thread.snapshot(supervisorOf(thread))) throw new BatonError('conflict', `thread ${thread.threadId} exists already`);
    const provider = c.provider ?? env.defaultProvider;
    thread.spawn('thread_supervisor', thread.threadId, {
      threadId: thread.threadId,
      title: c.title ?? 'New thread',
      provider,
      model: c.model ?? null,
      runtimeMode: c.runtimeMode ?? 'workspace_write',
      interactionMode: c.interactionMode ?? 'default',
      cwd: c.cwd,
      parentThreadId: null,
      relationshipToParent: null,
      rootThreadId: thread.threadId,
      providerThreadId: thread.current.newId('providerThread'),
      capabilities: dispatchCapabilities(env.capabilities(provider)),
      createdAt: thread.current.at,
    });
    return { threadId: thread.threadId };
  },

  'thread.message.send': (thread, c) => {
    const sup = supervisorContext(thread);
    const runId = thread.current.newId('run');
    const messageId = thread.current.newId('message');
    thread.deliver(
      supervisorOf(thread),
      {
        type: 'SEND', runId, messageId, rootNodeId: thread.current.newId('node'), attemptId: thread.current.newId('attempt'), text: c.text,
        mode: c.dispatchMode ?? 'auto', provider: c.provider ?? sup.provider, model: c.model ?? sup.model,
      },
      { mustAccept: true },
    );
    // A steer attaches the message to the active run; anything else made a new run.
    const created = thread.snapshot({ kind: 'run', id: runId });
    const after = supervisorContext(thread);
    return created
      ? { runId, messageId, dispatched: after.activeRunId === runId ? 'started' : 'queued' }
      : { runId: sup.activeRunId, messageId, dispatched: 'steered' };
  },

  'run.interrupt': (thread, c) => {
    const run = thread.require({ kind: 'run', id: c.runId }).actor.getSnapshot();
    const ctx = run.context as RunContext;
    if (run.status === 'done' || run.hasTag('terminal')) return { runId: c.runId, status: ctx.status, alreadyTerminal: true };
    thread.deliver(supervisorOf(thread), { type: 'INTERRUPT', runId: c.runId, holdQueue: c.holdQueue ?? false }, { mustAccept: true });
    return { runId: c.runId, holdQueue: c.holdQueue ?? false };
  },

  'thread.stop': (thread) => {
    supervisorContext(thread);
    thread.deliver(supervisorOf(thread), { type: 'STOP' }, { mustAccept: true });
    return { threadId: thread.threadId, queueHeld: true };
  },

  'runtime-request.respond': (thread, c) => {
    const request = thread.require({ kind: 'runtime_request', id: c.requestId }).actor.getSnapshot();
    const ctx = request.context as RuntimeRequestContext;
    if (request.matches({ pending: 'not_resumable' })) {
      throw new BatonError('not_resumable', `request ${c.requestId} can no longer be answered: ${ctx.notResumableReason}`, { requestId: c.requestId, reason: ctx.notResumableReason });
    }
    if (ctx.status !== 'pending') throw new BatonError('conflict', `request ${c.requestId} is already ${ctx.status}`, { status: ctx.status });
    const wantsAnswers = ctx.kind === 'user_input';
    if (wantsAnswers ? !c.answers : !c.decision) {
      throw new BatonError('invalid_command', wantsAnswers ? `request ${c.requestId} asks questions: send answers` : `request ${c.requestId} needs a decision`);
    }
    thread.deliver({ kind: 'runtime_request', id: c.requestId }, { type: 'RESPOND', decision: c.decision ?? null, answers: c.answers ?? null }, { mustAccept: true });
    return { requestId: c.requestId, status: 'resolved' };
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
    const run = thread.require({ kind: 'run', id: c.runId }).actor.getSnapshot().context as RunContext;
    thread.deliver(
      supervisorOf(thread),
      { type: 'PROMOTE', runId: c.runId, messageId: run.userMessageId, text: run.text, attemptId: thread.current.newId('attempt'), rootNodeId: thread.current.newId('node') },
      { mustAccept: true },
    );
    return { runId: supervisorContext(thread).activeRunId, promotedRunId: c.runId };
  },


  'thread.settings.update': (thread, c, env) => {
    const { commandId: _c, type: _t, threadId: _id, ...changes } = c;
    const capabilities = changes.provider ? dispatchCapabilities(env.capabilities(changes.provider)) : undefined;
    thread.deliver(supervisorOf(thread), { type: 'SETTINGS_UPDATE', changes, ...(capabilities ? { capabilities } : {}) }, { mustAccept: true });
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

  'thread.fork': () => unsupported('thread.fork'),
  'thread.merge_back': () => unsupported('thread.merge_back'),
  // Rollbacks restore files before their step: see rollback.ts.
  'rollback.toRun': () => unsupported('rollback.toRun outside the runtime'),
  'rollback.node': () => unsupported('rollback.node outside the runtime'),
};

function unsupported(type: string): never {
  throw new BatonError('unsupported', `${type} is not built yet in this version of Baton`);
}

/** Runs a parsed command's handler; the command type picks it. */
export function handleCommand(thread: ThreadActor, command: Command, env: HandlerEnv): Record<string, unknown> {
  const handler = commandHandlers[command.type] as Handler<CommandType>;
  return handler(thread, command as never, env);
}
