import type { Command } from '../domain/commands.js';
import type { IdSource } from '../domain/sources.js';
import type { Store } from '../persistence/store.js';

/** The thread a command acts on: the one it names, or a new one for a new thread. */
export function threadOf(command: Command, store: Store, ids: IdSource): string | null {
  const named = namedThread(command, store);
  if (named !== null) return named;
  return command.type === 'thread.create' || command.type === 'thread.fork' ? ids.next('thread') : null;
}

/** The thread a command names, directly or through the app id it targets; null if none (or unknown). */
export function namedThread(command: Command, store: Store): string | null {
  const entityThread = (id: string) => store.entities.get(id)?.threadId ?? null;
  switch (command.type) {
    case 'thread.create':
    case 'thread.fork':
      return command.threadId ?? null;
    case 'run.interrupt':
    case 'queued-run.cancel':
    case 'queued-message.promote':
      return entityThread(command.runId);
    case 'runtime-request.respond':
      return entityThread(command.requestId);
    case 'rollback.node':
      return entityThread(command.nodeId);
    default:
      return command.threadId;
  }
}

/** The app id a command names, for a not_found message a person can act on. */
export function describeTarget(command: Command): string {
  if ('runId' in command) return `run ${command.runId}`;
  if ('requestId' in command) return `request ${command.requestId}`;
  if ('nodeId' in command) return `node ${command.nodeId}`;
  return 'such target';
}
