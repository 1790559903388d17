import { join } from 'node:path';
import type { CanUseTool, OnElicitation } from '@anthropic-ai/claude-agent-sdk';
import type { ProviderSessionId, ProviderThreadId, ThreadId } from '../../domain/ids.js';
import type { ProviderEvent } from '../../domain/provider-events.js';
import { startAgentSession, type AgentSession, type AgentState } from './claude-agent-session.js';
import { resumeOptions, type ConversationScope } from './claude-conversation.js';
import { claudeEnv, claudeOptions, type ClaudeEndpoint } from './claude-environment.js';
import { createClaudeNormalizer } from './claude-normalizer.js';
import type { AgentProcessFactory } from './claude-process.js';
import type { McpServers } from '../mcp-servers.js';
import { FrameLog } from '../transport/diagnostics.js';
import { unreadableFrameWarning } from '../unreadable-frame.js';

/**
 * The life of a thread's agent session as Baton reports it: started (resuming its provider
 * thread's session id, if it has one) in the thread's folders, with its environment and its
 * own credential on Baton's MCP server; and what its end reports when Baton did not ask for it.
 */

/** What a session's start needs of the adapter. */
export interface SessionStart extends ConversationScope {
  endpoint: ClaudeEndpoint;
  apiKey?: string | undefined;
  processFor?: AgentProcessFactory | undefined;
  mcpServers?: McpServers | undefined;
  /** Reports events (in order, through the adapter). */
  forward(events: ProviderEvent[]): void;
  canUseTool(state: AgentState): CanUseTool;
  onElicitation(state: AgentState): OnElicitation;
  /** The started session becomes the adapter's; settles once its messages are read to the end. */
  adopt(session: AgentSession): Promise<void>;
}

export function sessionStatus(
  threadId: ThreadId,
  sessionId: ProviderSessionId,
  status: 'starting' | 'ready' | 'running' | 'waiting' | 'stopped',
  reason: string | null,
): ProviderEvent {
  return { type: 'session.status', threadId, sessionId, provider: 'claude', status, reason };
}

/** A new session for this provider thread, resuming its session id if it has one, reported `starting` then `ready`. */
export function startThreadSession(o: SessionStart, providerThreadId: ProviderThreadId | null): AgentSession {
  const host = o.host;
  const sessionId = host.ids.next('providerSession');
  const normalizer = createClaudeNormalizer({ threadId: o.threadId, sessionId, ids: host.ids });
  const resume = providerThreadId ? host.nativeThreadRef(providerThreadId) : null;
  const dirs = o.dirsOf(o.threadId);
  // Resumed by id, or (a rollback's or fork's pending fork) forked from its source at its point.
  const start = resume ? resumeOptions(dirs, resume) : {};
  const env = claudeEnv({
    endpoint: o.endpoint,
    dirs,
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
  });
  o.forward([sessionStatus(o.threadId, sessionId, 'starting', null)]);
  // A credential of the session's own on Baton's MCP server, revoked when its query ends (see the adapter's pump).
  const mcp = host.orchestratorMcp?.(o.threadId) ?? null;
  const session = startAgentSession({
    threadId: o.threadId,
    sessionId,
    normalizer,
    providerThreadId,
    resumed: resume,
    options: {
      ...claudeOptions({
        cwd: host.threadCwd(o.threadId),
        model: o.endpoint.model,
        env,
        ...(mcp ? { batonMcp: mcp } : {}),
        ...(o.mcpServers ? { mcpServers: o.mcpServers } : {}),
      }),
      ...start,
    },
    canUseTool: (state) => o.canUseTool(state),
    onElicitation: (state) => o.onElicitation(state),
    processFor: o.processFor,
    frames: {
      log: new FrameLog({ dir: join(dirs.root, 'frames'), name: sessionId }),
      onProblem: (problem) => o.forward([unreadableFrameWarning(o.threadId, 'Claude', problem)]),
    },
  });
  session.pumped = o.adopt(session).finally(() => mcp?.revoke());
  o.forward([sessionStatus(o.threadId, sessionId, 'ready', null)]);
  return session;
}

/**
 * What the end of the adapter's live session reports when Baton did not release it (`reason`
 * says why it ended): a resume the agent refused, or the runtime lost.
 */
export function sessionEndEvents(threadId: ThreadId, session: AgentState, reason: string): ProviderEvent[] {
  if (session.resumed && !session.began && session.providerThreadId) {
    // The agent would not go on with the session (its transcript is gone, say): the provider
    // thread is replaced, and the run goes on in the replacement, seeded from Baton's record.
    const refusal = session.refusal ?? reason;
    return [
      {
        type: 'thread.failed',
        threadId,
        providerThreadId: session.providerThreadId,
        reason: `Claude could not resume session ${session.resumed}: ${refusal}`,
      },
      sessionStatus(threadId, session.sessionId, 'stopped', refusal),
    ];
  }
  // A turn the agent had not begun yet dies with it too, and so do its subagents (no notification will come).
  const active = session.normalizer.active ?? session.normalizer.waiting;
  return [
    ...session.normalizer.closeSubagents(),
    active
      ? {
          type: 'runtime.lost',
          threadId,
          sessionId: session.sessionId,
          ...(session.killedFor ?? {
            runStatus: 'failed',
            error: {
              code: 'provider_error',
              message: `${reason}${session.stderr ? ` (${session.stderr.slice(-300)})` : ''}`,
            },
          }),
        }
      : sessionStatus(threadId, session.sessionId, 'stopped', reason),
  ];
}
