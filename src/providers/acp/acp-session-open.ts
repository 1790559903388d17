import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import type { ProviderHost } from '../../actors/provider-host.js';
import type { ForkOrigin } from '../../domain/entities.js';
import { BatonError, parseOrThrow } from '../../domain/errors.js';
import type { ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import type { AcpAgent } from './acp-agents.js';
import { forkParams, prepareFork, type AcpForkPoint } from './acp-fork.js';
import type { AcpSession } from './acp-session.js';
import { sessionSettings } from './acp-turn-settings.js';

/**
 * How an agent process's ACP session begins: a new one (`session/new`), a fork of another
 * thread's (`session/fork`), or the provider thread's stored one taken up again
 * (`session/resume`, else `session/load`). Each binds the session id to the provider thread
 * and reports the mode its answer says the session runs in (`mode.updated`: acp-modes.ts).
 */

/** What an opening needs of the adapter. */
export interface SessionOpening {
  host: ProviderHost;
  threadId: ThreadId;
  dataDir: string;
  /** The MCP servers every session is opened with (acp-mcp.ts): new, forked or taken up again. */
  mcpServers: acp.McpServer[];
  /** A request to the agent; a failure stops the agent and is a typed `provider_error`. */
  request<T>(session: AcpSession, send: () => Promise<T>): Promise<T>;
  /** Reports events and waits until the runtime took them. */
  report(events: ProviderEvent[]): Promise<void>;
  /** Stops the adapter's session (and its agent). */
  stop(): Promise<void>;
}

/** What Baton reads of a `session/fork` answer (unstable in ACP: the SDK does not type it); modes and models as session/new's. */
const ForkAnswer = z.looseObject({ sessionId: z.string().min(1) });

/** The session's id, bound to its provider thread (resolved as a native fork for a fork). */
async function bind(
  o: SessionOpening,
  session: AcpSession,
  nativeSessionId: string,
  resolution?: 'native_fork',
): Promise<void> {
  session.nativeSessionId = nativeSessionId;
  if (!session.providerThreadId) return;
  await o.report([
    {
      type: 'thread.loaded',
      threadId: o.threadId,
      providerThreadId: session.providerThreadId,
      nativeThreadRef: nativeSessionId,
      resumeCursor: nativeSessionId,
      ...(resolution ? { resolution } : {}),
    },
  ]);
}

/** `session/new` in the thread's cwd. */
export async function openSession(o: SessionOpening, session: AcpSession, cwd: string): Promise<void> {
  const conn = session.connection!;
  const created = await o.request(session, () =>
    conn.answered('session/new', conn.agent.request('session/new', { cwd, mcpServers: o.mcpServers })),
  );
  session.settings = sessionSettings(created);
  await bind(o, session, created.sessionId);
  await o.report(session.normalizer.opened(created));
}

/**
 * A fork thread's first session: the source's transcript copied into this thread's agent
 * folder, then `session/fork` at the end of the source run (acp-fork.ts). An agent Baton
 * cannot hand another thread's session to refuses it typed.
 */
export async function forkSession(
  o: SessionOpening,
  session: AcpSession,
  agent: AcpAgent,
  cwd: string,
  fork: ForkOrigin,
): Promise<void> {
  let point: AcpForkPoint;
  try {
    if (!session.connection!.features.fork)
      throw new BatonError('unsupported', `the ACP agent ${agent.name} offers no session/fork`);
    point = prepareFork(o.host, agent, o.dataDir, o.threadId, fork);
  } catch (error) {
    await o.stop();
    throw error;
  }
  const conn = session.connection!;
  const answer = await o.request(session, () =>
    conn.answered('session/fork', conn.agent.request('session/fork', forkParams(point, cwd, o.mcpServers))),
  );
  const forked = parseOrThrow(ForkAnswer, answer, 'provider_error', 'the session/fork answer');
  session.settings = sessionSettings(forked);
  await bind(o, session, forked.sessionId, 'native_fork');
  await o.report(session.normalizer.opened(forked));
}

/**
 * The stored session, taken up in the new process: `session/resume` where the agent offers
 * it (no history replayed), else `session/load` (its replay is no turn's: the normalizer
 * drops updates with no prompt running). An agent that offers neither, or refuses, leaves
 * the provider thread failed: the run goes on in a replacement seeded from Baton's record.
 */
export async function takeUpSession(o: SessionOpening, session: AcpSession, nativeSessionId: string): Promise<void> {
  const conn = session.connection!;
  const cwd = o.host.threadCwd(o.threadId);
  const how = conn.features.resume;
  // The servers are the process's, not the session's: a new process is given them again.
  const params = { sessionId: nativeSessionId, cwd, mcpServers: o.mcpServers };
  let answer: unknown;
  try {
    if (how === 'resume') answer = await conn.answered('session/resume', conn.agent.request('session/resume', params));
    else if (how === 'load') answer = await conn.answered('session/load', conn.agent.request('session/load', params));
    else throw new Error('the agent offers neither session/resume nor session/load');
    session.settings = sessionSettings(answer);
    session.nativeSessionId = nativeSessionId;
  } catch (error) {
    const reason = `the ACP agent ${session.agentName} could not take up session ${nativeSessionId}: ${error instanceof Error ? error.message : String(error)}`;
    await o.stop();
    if (session.providerThreadId)
      await o.report([
        { type: 'thread.failed', threadId: o.threadId, providerThreadId: session.providerThreadId, reason },
      ]);
    throw new BatonError('not_resumable', `${reason}; the run goes on in its replacement`);
  }
  await o.report(session.normalizer.opened(answer));
}
