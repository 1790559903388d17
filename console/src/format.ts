import type { RunView, ThreadShell } from '../../src/domain/projections.js';

/** A status as words, for labels (`rolled_back` -> `rolled back`). */
export const words = (s: string): string => s.replace(/_/g, ' ');

export const threadTitle = (t: Pick<ThreadShell, 'title' | 'id'>): string => t.title || t.id;

const running = new Set(['starting', 'running', 'waiting']);
export const isActiveRun = (r: Pick<RunView, 'status'>): boolean => running.has(r.status);
export const isFinishedRun = (r: Pick<RunView, 'status'>): boolean =>
  r.status === 'completed' || r.status === 'interrupted' || r.status === 'failed';

/** What a thread is doing, in a word or two. */
export function threadState(t: ThreadShell): string {
  if (t.status !== 'active') return t.status;
  if (t.activeRunStatus) return words(t.activeRunStatus);
  if (t.queuedRunCount > 0) return t.queueHeld ? 'queue held' : 'queued';
  return 'idle';
}

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
