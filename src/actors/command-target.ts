import type { Command } from '../domain/commands.js';
import type { IdSource } from '../domain/sources.js';
import type { Store } from '../persistence/store.js';

/** The thread a command acts on when it names none: a new one for a create or a fork, else none. */
export function newThreadOf(command: Command, ids: IdSource): string | null {
  return command.type === 'thread.create' || command.type === 'thread.fork' ? ids.next('thread') : null;
}

/**
 * True when a command acts outside the store before its step (checks or names a workspace,
 * restores or applies files, makes a new thread): a resend of it must be answered from its
 * receipt before any of that. Any other command's resend is caught by its commit.
 */
export function actsBeforeItsStep(command: Command): boolean {
  switch (command.type) {
    case 'thread.create':
    case 'thread.fork':
    case 'rollback.toRun':
    case 'rollback.node':
      return true;
    case 'thread.merge_back':
      return !!command.files;
    default:
      return false;
  }
}

/** The thread a command names, directly or through the app id it targets; null if none (or unknown). */
export function namedThread(command: Command, store: Store): string | null {
  switch (command.type) {
    case 'thread.create':
    case 'thread.fork':
      return command.threadId ?? null;
    case 'run.interrupt':
    case 'queued-run.cancel':
    case 'queued-message.promote':
      return entityThread(store, command.runId);
    case 'runtime-request.respond':
      return entityThread(store, command.requestId);
    case 'rollback.node':
      return entityThread(store, command.nodeId);
    case 'plan.implement':
      return command.threadId ?? store.projections.get('plans', command.planId)?.threadId ?? null;
    default:
      return command.threadId;
  }
}

/** The thread an entity belongs to, or null if Baton has no such entity. */
function entityThread(store: Store, id: string): string | null {
  return store.entities.get(id)?.threadId ?? null;
}

/** The app id a command names, for a not_found message a person can act on. */
export function describeTarget(command: Command): string {
  if ('runId' in command) return `run ${command.runId}`;
  if ('requestId' in command) return `request ${command.requestId}`;
  if ('nodeId' in command) return `node ${command.nodeId}`;
  if ('planId' in command) return `plan ${command.planId}`;
  return 'such target';
}
