/** How long an agent asked to end has before it is killed (the Agent SDK gives its Claude agent as long). */
export const STOP_GRACE_MS = 5_000;

/**
 * Ends an agent process: `first` (a signal, or nothing when the caller has already asked it
 * to end, by closing its stdin), then SIGKILL should it still be running `graceMs` later. An
 * agent that does not act on SIGTERM (frozen, or stuck ending) would otherwise outlive its
 * stop and hold whatever waits on it, Baton's shutdown included, for ever. Resolves once
 * `exited` has; or, should even SIGKILL not end it yet (a process in uninterruptible sleep),
 * `graceMs` after the SIGKILL: no stop waits for ever.
 *
 * `send` delivers a signal and must do nothing once the process is gone (its pid may be
 * another process's by then).
 */
export async function endAgent(
  send: (signal: NodeJS.Signals) => void,
  exited: Promise<void>,
  first: NodeJS.Signals | null,
  graceMs = STOP_GRACE_MS,
): Promise<void> {
  if (first) send(first);
  if (first !== 'SIGKILL' && !(await settlesWithin(exited, graceMs))) send('SIGKILL');
  await settlesWithin(exited, graceMs);
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
