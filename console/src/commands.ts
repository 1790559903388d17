import type { BatonClient, CommandPayload } from '../../src/client/baton-client.js';
import type { CommandType } from '../../src/domain/commands.js';
import type { ErrorInfo } from '../../src/domain/errors.js';
import { Observable } from './observable.js';

export interface Notice {
  id: number;
  text: string;
}

/** The API's refusals, as the page shows them until dismissed. */
export const notices = new Observable<Notice[]>([]);
let nextNotice = 0;

export function notify(text: string): void {
  notices.set([...notices.value, { id: ++nextNotice, text }].slice(-5));
}

export function dismiss(id: number): void {
  notices.set(notices.value.filter((n) => n.id !== id));
}

const phrases: Partial<Record<ErrorInfo['code'], string>> = {
  invalid_command: 'The request is not valid',
  invalid_payload: 'The request is not valid',
  not_found: 'Not found',
  conflict: 'Conflict',
  invalid_transition: 'Not possible right now',
  not_resumable: 'It can no longer be answered',
  unsupported: 'Not supported',
  provider_error: 'The agent failed',
  unauthorized: 'Not allowed',
  timeout: 'Timed out',
};

/** An error Baton sent, as a sentence a person reads (the code stays visible for a bug report). */
export function describeError(error: ErrorInfo): string {
  const phrase = phrases[error.code] ?? 'Baton could not do it';
  return `${phrase}: ${error.message} (${error.code})`;
}

const labels: Partial<Record<CommandType, string>> = {
  'thread.create': 'Create thread',
  'thread.message.send': 'Send',
  'run.interrupt': 'Interrupt',
  'thread.stop': 'Stop',
  'runtime-request.respond': 'Answer',
  'queued-run.reorder': 'Reorder queue',
  'queued-run.cancel': 'Cancel queued run',
  'queued-message.promote': 'Promote to steer',
  'thread.fork': 'Fork',
  'thread.merge_back': 'Merge back',
  'rollback.toRun': 'Roll back',
  'thread.settings.update': 'Change settings',
  'thread.archive': 'Archive',
  'plan.implement': 'Implement the plan',
};

/**
 * Sends a command; a refusal (or a connection that fails under it) becomes a notice and
 * the result is null, so a view only handles success.
 */
export async function send<K extends CommandType>(
  client: BatonClient,
  type: K,
  payload: CommandPayload<K>,
): Promise<Record<string, unknown> | null> {
  const what = labels[type] ?? type;
  try {
    const ack = await client.command(type, payload);
    if (ack.ok) return (ack.result ?? {}) as Record<string, unknown>;
    notify(`${what}: ${describeError(ack.error)}`);
  } catch (error) {
    // Refused before it left (offline): the refusal says it all; anything else got no answer.
    if (error instanceof Error && error.name === 'NotConnected') notify(`${what}: ${error.message}`);
    else notify(`${what}: no answer from Baton (${error instanceof Error ? error.message : String(error)})`);
  }
  return null;
}
