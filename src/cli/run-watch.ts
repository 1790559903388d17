import type { BatonClient } from '../client/baton-client.js';
import { BatonError } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import type { ThreadId } from '../domain/ids.js';
import { eventDescriber } from './describe-event.js';

/** How a run ended, as its `run.terminal` says. */
export type RunEnd = Extract<DomainEvent, { type: 'run.terminal' }>['payload']['status'];

/** Prints a thread's events from now on, and tells when a run of it ends. */
export interface RunWatch {
  /** Resolves with how `runId` ended (at once if it has already). */
  end(runId: string): Promise<RunEnd>;
}

/**
 * Subscribes to a thread before a command is sent, so no event of the run it starts is
 * missed (they can come before its ack, which names the run). Prints each event as `tail`
 * does. A lost subscription (another Baton at the address after a restart) fails `end`.
 */
export async function watchThread(client: BatonClient, threadId: ThreadId): Promise<RunWatch> {
  const ended = new Map<string, RunEnd>();
  const waiting = new Map<string, (end: RunEnd) => void>();
  let lost: BatonError | null = null;
  const failures: ((error: BatonError) => void)[] = [];
  const describeEvent = eventDescriber();
  await client.subscribe(
    { stream: 'thread', threadId },
    (event) => {
      const line = describeEvent(event);
      if (line) process.stdout.write(line);
      if (event.type !== 'run.terminal') return;
      ended.set(event.payload.runId, event.payload.status);
      waiting.get(event.payload.runId)?.(event.payload.status);
    },
    (error) => {
      lost = new BatonError('not_found', `stopped following ${threadId}: ${error.message}`);
      failures.forEach((fail) => fail(lost!));
    },
  );
  return {
    end: (runId) =>
      new Promise<RunEnd>((resolve, reject) => {
        const known = ended.get(runId);
        if (known) return resolve(known);
        if (lost) return reject(lost);
        waiting.set(runId, resolve);
        failures.push(reject);
      }),
  };
}
