import type { ThreadId } from '../domain/ids.js';
import type { ProviderEvent } from '../domain/provider-events.js';

/**
 * The warning a thread gets when its agent sent a frame Baton could not read: the frame is
 * in the raw frame log and was skipped, nothing stored was touched, and the user is told.
 */
export function unreadableFrameWarning(threadId: ThreadId, agent: string, problem: string): ProviderEvent {
  return {
    type: 'warning',
    threadId,
    runId: null,
    message: `unreadable ${agent} frame (${problem}); it was logged and skipped`,
  };
}
