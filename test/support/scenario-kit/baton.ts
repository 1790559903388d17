import type { Harness } from '../runtime.js';
import { check } from './scenario.js';

/** How scenarios talk to Baton: the commands they send and the projections they read. */

/** Sends a user message (optionally with a dispatch mode) and returns its run id. */
export async function send(h: Harness, threadId: string, text: string, dispatchMode?: string): Promise<string> {
  const ack = (await h.command({
    type: 'thread.message.send',
    threadId,
    text,
    ...(dispatchMode ? { dispatchMode } : {}),
  })) as { ok: boolean; result: { runId: string } };
  check(ack.ok, `send refused: ${JSON.stringify(ack)}`);
  return ack.result.runId;
}

/** A run's projected status (undefined before it exists). */
export const status = (h: Harness, runId: string): string | undefined => h.store.projections.get('runs', runId)?.status;

/** The thread's assistant messages, in order. */
export const assistantTexts = (h: Harness, threadId: string): string[] =>
  h.store.projections
    .list('messages', threadId)
    .filter((m) => m.role === 'assistant')
    .map((m) => m.text);

/** The warnings the thread was told (an unreadable frame, say), in order. */
export const runtimeWarnings = (h: Harness, threadId: string): string[] =>
  h.store.events.readThreadAfter(threadId, 0).flatMap((e) => (e.type === 'runtime.warning' ? [e.payload.message] : []));
