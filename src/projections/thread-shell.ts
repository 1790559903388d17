import type { ThreadShell } from '../domain/projections.js';
import type { ProjectionOverlay } from './overlay.js';

/** Changes a thread's shell row (the sidebar's view of it); null when the thread has none. */
export function updateThread(
  view: ProjectionOverlay,
  threadId: string,
  at: number,
  change: (t: ThreadShell) => Partial<ThreadShell>,
): ThreadShell | null {
  const shell = view.get('threads', threadId);
  if (!shell) return null;
  const next = { ...shell, ...change(shell), updatedAt: at };
  view.put('threads', threadId, threadId, next, shell.createdAt);
  return next;
}
