import { randomUUID } from 'node:crypto';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import type { ProviderHost } from '../../actors/provider-host.js';
import type { ForkOrigin } from '../../domain/entities.js';
import { BatonError } from '../../domain/errors.js';
import type { ProviderThreadId, ThreadId } from '../../domain/ids.js';
import type { ProjectionRow } from '../../domain/projections.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { ClaudeSessionDirs } from './claude-environment.js';
import {
  copyTranscript,
  pendingFork,
  sessionMessages,
  transcriptOf,
  writePendingFork,
  type ChainMessage,
} from './claude-sessions.js';

/**
 * Claude's conversation over time: rolled back to the end of a run, forked at a turn.
 * Both are one mechanism of the agent: a new session that resumes another one only up to a
 * chain entry (`resume`, `resumeSessionAt`, `forkSession`, with the new `sessionId` chosen
 * by Baton), which keeps the entries' uuids, so Baton's turn refs (the uuids of the user
 * messages it sent) still name the kept turns. The agent writes the new session with its
 * next message; until then Baton keeps it as a pending fork in the thread's folders, and
 * binds the provider thread to the new session id at once.
 */

/** What the conversation needs of the adapter: the host, the app thread, and any thread's agent folders. */
export interface ConversationScope {
  host: ProviderHost;
  threadId: ThreadId;
  dirsOf(threadId: string): ClaudeSessionDirs;
}

type ResumeOptions = Pick<Options, 'resume' | 'resumeSessionAt' | 'forkSession' | 'sessionId'>;

/** How the agent is started to go on with a session: resumed, or (a pending fork) forked from its source. */
export function resumeOptions(dirs: ClaudeSessionDirs, sessionId: string): ResumeOptions {
  if (transcriptOf(dirs, sessionId)) return { resume: sessionId };
  const fork = pendingFork(dirs, sessionId);
  return fork ? { resume: fork.from, resumeSessionAt: fork.at, forkSession: true, sessionId } : { resume: sessionId };
}

/** A session the agent was started to go on with (`resumed`): whether it began, or what it said instead. */
export interface ResumeWatch {
  resumed: string | null;
  /** Its `system/init` came: the agent took the session. */
  began: boolean;
  /** What the agent said when it ended before it began (a resume it refused). */
  refusal: string | null;
}

const Init = z.looseObject({ type: z.literal('system'), subtype: z.literal('init') });
const ErrorResult = z.looseObject({
  type: z.literal('result'),
  is_error: z.literal(true),
  errors: z.array(z.string()).optional(),
});

/**
 * Reads one SDK message into the watch. A refused resume (an unknown session id, a missing
 * transcript) is one error `result` ("No conversation found with session ID: …") before
 * any `system/init`, then the agent exits (measured on 0.3.332).
 */
export function watchResume(watch: ResumeWatch, message: unknown): void {
  if (watch.began) return;
  if (Init.safeParse(message).success) watch.began = true;
  else {
    const refused = ErrorResult.safeParse(message);
    if (refused.success) watch.refusal = refused.data.errors?.join('; ') || 'an error result before it began';
  }
}

/** A session's chain as the agent would resume it, and the session with the transcript it comes from. */
async function chainOf(dirs: ClaudeSessionDirs, sessionId: string): Promise<{ from: string; chain: ChainMessage[] }> {
  const fork = transcriptOf(dirs, sessionId) ? null : pendingFork(dirs, sessionId);
  if (!fork) return { from: sessionId, chain: await sessionMessages(dirs, sessionId) };
  const chain = await sessionMessages(dirs, fork.from);
  const at = chain.findIndex((m) => m.uuid === fork.at);
  return { from: fork.from, chain: at < 0 ? [] : chain.slice(0, at + 1) };
}

type Run = ProjectionRow<'runs'>;

/** The native turns (user message uuids) of a thread's attempts, on one provider thread (or any), for the runs `pick` takes. */
function turnRefs(
  host: ProviderHost,
  threadId: string,
  providerThreadId: string | null,
  pick: (run: Run) => boolean,
): string[] {
  return host
    .runs(threadId)
    .filter(pick)
    .flatMap((r) => r.attempts)
    .filter((a) => providerThreadId === null || a.providerThreadId === providerThreadId)
    .flatMap((a) => host.nativeTurnRef(a.id) ?? []);
}

/**
 * Rolls the provider thread's conversation back to the end of run `runOrdinal`: a pending
 * fork of its session up to the last chain entry before the first dropped turn, the provider
 * thread bound to it, and what it keeps reported (`thread.reverted`), checked against the
 * turns Baton keeps. A session that cannot be read, or keeps nothing, has diverged: it is
 * reported failed, and its replacement is reseeded from Baton's record.
 */
export async function rollBack(
  scope: ConversationScope,
  providerThreadId: ProviderThreadId,
  runOrdinal: number,
): Promise<ProviderEvent[]> {
  const { host, threadId } = scope;
  const onThread = { threadId, providerThreadId };
  const all = turnRefs(host, threadId, providerThreadId, () => true);
  const kept = turnRefs(
    host,
    threadId,
    providerThreadId,
    (r) => r.ordinal !== null && r.ordinal <= runOrdinal && r.status !== 'rolled_back',
  );
  const dropped = new Set(
    turnRefs(host, threadId, providerThreadId, (r) => r.ordinal === null || r.ordinal > runOrdinal),
  );
  const reverted = (chain: ChainMessage[]): ProviderEvent => {
    const remaining = chain.map((m) => m.uuid).filter((u) => all.includes(u));
    return {
      type: 'thread.reverted',
      ...onThread,
      runOrdinal,
      remainingTurnRefs: remaining,
      missingTurnRefs: kept.filter((t) => !remaining.includes(t)),
      unexpectedTurnRefs: remaining.filter((t) => !kept.includes(t)),
    };
  };
  const failed = (reason: string): ProviderEvent[] => [
    { type: 'thread.failed', ...onThread, reason: `diverged: ${reason}` },
  ];
  const session = host.nativeThreadRef(providerThreadId);
  // The agent never began a turn on it: there is nothing to roll back.
  if (!session) return [reverted([])];
  const dirs = scope.dirsOf(threadId);
  let source: { from: string; chain: ChainMessage[] };
  try {
    source = await chainOf(dirs, session);
  } catch (error) {
    return failed(
      `the Claude session ${session} could not be read (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (source.chain.length === 0) return failed(`the Claude session ${session} has no transcript`);
  const cut = source.chain.findIndex((m) => dropped.has(m.uuid));
  // None of the dropped runs reached the agent: it keeps what it has.
  if (cut < 0) return [reverted(source.chain)];
  if (cut === 0) return failed('the Claude conversation keeps nothing before the runs rolled back');
  const chain = source.chain.slice(0, cut);
  const sessionId = randomUUID();
  writePendingFork(dirs, { sessionId, from: source.from, at: chain.at(-1)!.uuid });
  return [{ type: 'thread.loaded', ...onThread, nativeThreadRef: sessionId, resumeCursor: sessionId }, reverted(chain)];
}

/**
 * A fork's first run: its provider thread becomes a pending fork of the source's session up
 * to the end of the source turn (the last chain entry before the source's next turn), in the
 * fork's own folders (the source's transcript is copied there; the source is not written).
 * Returns the `thread.loaded` that binds it, resolved as a native fork.
 */
export async function forkAtTurn(
  scope: ConversationScope,
  providerThreadId: ProviderThreadId,
  fork: ForkOrigin,
): Promise<ProviderEvent> {
  const { host } = scope;
  const session = fork.sourceProviderThreadId ? host.nativeThreadRef(fork.sourceProviderThreadId) : null;
  const turn = fork.sourceAttemptId ? host.nativeTurnRef(fork.sourceAttemptId) : null;
  if (fork.sourceProvider !== 'claude' || !session || !turn)
    throw new BatonError('unsupported', 'this fork cannot be resolved natively: its source is no Claude turn');
  const sourceDirs = scope.dirsOf(fork.sourceThreadId);
  const { from, chain } = await chainOf(sourceDirs, session);
  const at = chain.findIndex((m) => m.uuid === turn);
  if (at < 0) throw new BatonError('provider_error', `the source turn ${turn} is not in Claude session ${session}`);
  const turns = new Set(turnRefs(host, fork.sourceThreadId, null, () => true));
  const next = chain.findIndex((m, i) => i > at && turns.has(m.uuid));
  const end = chain[(next < 0 ? chain.length : next) - 1]!;
  const dirs = scope.dirsOf(scope.threadId);
  copyTranscript(sourceDirs, dirs, from);
  const sessionId = randomUUID();
  writePendingFork(dirs, { sessionId, from, at: end.uuid });
  return {
    type: 'thread.loaded',
    threadId: scope.threadId,
    providerThreadId,
    nativeThreadRef: sessionId,
    resumeCursor: sessionId,
    resolution: 'native_fork',
  };
}
