import { BatonError } from '../../domain/errors.js';
import type { ForkOrigin } from '../../domain/entities.js';
import type { ProviderThreadId, ThreadId } from '../../domain/ids.js';
import type { CodexHost } from './codex-host.js';
import { refusedByCodex, type CodexSession } from './codex-session.js';

/**
 * The native Codex thread behind a provider thread: opened (resumed, forked or started) for
 * a turn, and reverted for a rollback. Each reports what happened as provider events; a
 * thread Codex refuses (its rollout gone or unreadable, a revert it cannot make) is reported
 * `thread.failed` and answers null: the provider thread is replaced and the replacement reseeded.
 */

export interface NativeThreadScope {
  session: CodexSession;
  host: CodexHost;
  threadId: ThreadId;
}

/**
 * Resumed from its stored ref; or, for a fork's first run, forked natively from the source
 * thread at the source turn (the runtime asks only for forks Codex can make: `forkStrategy`);
 * or started new. Binds a new native thread to the provider thread (`thread.loaded`).
 */
export async function openNativeThread(
  o: NativeThreadScope,
  providerThreadId: ProviderThreadId | null,
  model: string | null,
  fork: ForkOrigin | null,
): Promise<string | null> {
  const { session, host, threadId } = o;
  const known = providerThreadId ? host.nativeThreadRef(providerThreadId) : null;
  const { thread: sourceThread, turn: sourceTurn } = fork ? forkSource(host, fork) : { thread: null, turn: null };
  let native: string;
  let resolution: 'native_fork' | undefined;
  if (providerThreadId && known) {
    try {
      native = await session.threadResume(known);
    } catch (error) {
      if (!refusedByCodex(error)) throw error;
      await host.emit({ type: 'thread.failed', threadId, providerThreadId, reason: error.message });
      return null;
    }
  } else if (fork && fork.sourceProvider === 'codex' && sourceThread && sourceTurn !== undefined) {
    // A fork with a workspace of its own (fork-workspace.ts) works there, never in its source's.
    const cwd = host.threadCwd(threadId);
    const own = cwd === host.threadCwd(fork.sourceThreadId) ? null : cwd;
    native = await session.threadFork(sourceThread, sourceTurn, own);
    resolution = 'native_fork';
  } else if (fork) {
    throw new BatonError('unsupported', 'this fork cannot be resolved natively: its source is no Codex turn');
  } else {
    native = await session.threadStart(host.threadCwd(threadId), model);
  }
  if (providerThreadId && native !== known)
    await host.emit({
      type: 'thread.loaded',
      threadId,
      providerThreadId,
      nativeThreadRef: native,
      resumeCursor: native,
      ...(resolution ? { resolution } : {}),
    });
  return native;
}

/**
 * The native thread and turn a fork forks: a subagent source's child thread at its node's
 * turn (an earlier follow-up's node leaves the later turns out; null: the child as it
 * stands), else the source run's thread at its turn (undefined when Baton holds none: no
 * native fork).
 */
function forkSource(host: CodexHost, fork: ForkOrigin): { thread: string | null; turn: string | null | undefined } {
  if (fork.sourceNativeThreadRef) return { thread: fork.sourceNativeThreadRef, turn: fork.sourceNativeTurnRef ?? null };
  const thread = fork.sourceProviderThreadId ? host.nativeThreadRef(fork.sourceProviderThreadId) : null;
  const turn = fork.sourceAttemptId ? host.nativeTurnRef(fork.sourceAttemptId) : null;
  return { thread, turn: turn ?? undefined };
}

/** The turns Baton keeps that Codex lost, and the ones Codex kept that Baton does not: a revert that diverged. */
function compareTurns(
  kept: readonly string[],
  remaining: readonly string[],
): { missing: string[]; unexpected: string[] } {
  const has = new Set(remaining);
  const keeps = new Set(kept);
  return { missing: kept.filter((t) => !has.has(t)), unexpected: remaining.filter((t) => !keeps.has(t)) };
}

/**
 * Rolls the native thread back to before `beforeTurnId` (the first turn of the run after
 * `runOrdinal`) and reports what Codex kept, checked against the turns Baton keeps, as
 * `thread.reverted`. Null when Codex refused: reported `thread.failed`.
 */
export async function revertNativeThread(
  o: NativeThreadScope,
  nativeThreadId: string,
  beforeTurnId: string,
  runOrdinal: number,
  providerThreadId: ProviderThreadId,
): Promise<'reverted' | null> {
  const { session, host, threadId } = o;
  let remaining: string[];
  try {
    remaining = await session.threadRevert(nativeThreadId, beforeTurnId);
  } catch (error) {
    if (!refusedByCodex(error)) throw error;
    // Codex keeps a conversation Baton rolled back: it has diverged, and is replaced (the next run reseeds).
    await host.emit({
      type: 'thread.failed',
      threadId,
      providerThreadId,
      reason: `Codex could not roll back: ${error.message}`,
    });
    return null;
  }
  const kept = host.keptTurnRefs(threadId, runOrdinal, providerThreadId);
  const { missing, unexpected } = compareTurns(kept, remaining);
  await host.emit({
    type: 'thread.reverted',
    threadId,
    providerThreadId,
    runOrdinal,
    remainingTurnRefs: remaining,
    missingTurnRefs: missing,
    unexpectedTurnRefs: unexpected,
  });
  return 'reverted';
}
