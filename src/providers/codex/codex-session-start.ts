import { join } from 'node:path';
import { BatonError } from '../../domain/errors.js';
import type { ProviderSessionId, ThreadId } from '../../domain/ids.js';
import { FrameLog } from '../transport/diagnostics.js';
import type { LineChannel } from '../transport/line-channel.js';
import { BATON_MCP_TOKEN_ENV, ensureCodexHome, type CodexModelEndpoint } from './codex-home.js';
import type { CodexHost } from './codex-host.js';
import { CodexSession, spawnCodex } from './codex-session.js';

/**
 * The session between its spawn and its handshake's end. A stop meanwhile kills it: it has
 * no session yet, so nothing else would, and it may not be reading its input (or be frozen,
 * which only SIGKILL ends); it holds nothing that a kill could lose.
 */
export class StartingSession {
  current: CodexSession | null = null;

  /** Resolves once its process is gone. */
  stop(): Promise<void> {
    const session = this.current;
    this.current = null;
    return session ? session.stop('SIGKILL') : Promise.resolve();
  }
}

export interface SessionStartScope {
  threadId: ThreadId;
  host: CodexHost;
  endpoint: CodexModelEndpoint;
  dataDir: string;
  channelFor?: (sessionId: string, spawn: () => LineChannel) => LineChannel;
  requestTimeoutMs?: number;
  starting: StartingSession;
  /** Whether Baton is shutting down: then nothing more is reported. */
  detached(): boolean;
}

/**
 * Starts one `codex app-server` for the thread, reported `starting`, and shakes hands. One
 * that fails (refuses, times out, exits, or is stopped meanwhile) is gone when this throws,
 * and its session is reported `error` (`stopped` when Baton stopped it), never left starting.
 */
export async function startCodexSession(o: SessionStartScope, sessionId: ProviderSessionId): Promise<CodexSession> {
  const { host, threadId } = o;
  // One CODEX_HOME for all of Baton's Codex sessions (never the user's ~/.codex): a thread
  // stored by one session can be resumed or forked by another.
  // Baton's MCP server is in the shared home; this session's own credential goes in its process's env.
  const mcp = host.orchestratorMcp?.(threadId) ?? null;
  const endpoint = mcp ? { ...o.endpoint, batonMcpUrl: mcp.url } : o.endpoint;
  const env: Record<string, string> = mcp ? { [BATON_MCP_TOKEN_ENV]: mcp.token } : {};
  const home = ensureCodexHome(join(o.dataDir, 'codex', 'home'), endpoint);
  const log = new FrameLog({ dir: join(o.dataDir, 'codex', threadId, 'frames'), name: sessionId });
  const status = (status: 'starting' | 'error' | 'stopped', reason: string | null) =>
    host.emit({ type: 'session.status', threadId, sessionId, provider: 'codex', status, reason });
  await status('starting', null);
  const cwd = host.threadCwd(threadId);
  const channel = o.channelFor?.(sessionId, () => spawnCodex(cwd, home, env));
  const session = CodexSession.open({
    codexHome: home,
    cwd,
    log,
    env,
    ...(channel ? { channel } : {}),
    ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
  });
  o.starting.current = session;
  try {
    await session.handshake();
    // Stopped while it started (Baton shutting down): it was killed, and no turn may use it.
    if (o.starting.current !== session)
      throw new BatonError('provider_error', 'the Codex session was stopped as it started');
  } catch (error) {
    mcp?.revoke();
    if (!o.detached()) {
      const reason = `Codex did not start: ${error instanceof Error ? error.message : String(error)}`;
      await status(o.starting.current === session ? 'error' : 'stopped', reason).catch(() => undefined);
    }
    throw error;
  } finally {
    if (o.starting.current === session) o.starting.current = null;
  }
  // The credential lives as long as the process: revoked when it exits, is stopped or is released.
  if (mcp) session.rpc.onClose(() => mcp.revoke());
  return session;
}
