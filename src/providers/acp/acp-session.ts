import type { ProviderSessionId, ProviderThreadId } from '../../domain/ids.js';
import type { AcpAgentConnection } from './acp-connection.js';
import type { AcpNormalizer } from './acp-normalizer.js';
import type { AcpTerminals } from './acp-terminals.js';
import type { AcpSessionSettings } from './acp-turn-settings.js';

/** Set when Baton killed the agent because a cancel went unanswered: how its run ends. */
export interface KilledFor {
  runStatus: 'interrupted' | 'failed';
  error: { code: 'timeout' | 'provider_error'; message: string };
}

/** One live agent process with one ACP session on it, for one app thread. */
export interface AcpSession {
  agentName: string;
  sessionId: ProviderSessionId;
  normalizer: AcpNormalizer;
  terminals: AcpTerminals;
  connection: AcpAgentConnection | null;
  /** Aborts its start (the agent killed) while `connection` is still being made. */
  starting: AbortController;
  /** The ACP session id (the native thread), once `session/new`, `resume` or `load` answered. */
  nativeSessionId: string | null;
  providerThreadId: ProviderThreadId | null;
  /** Baton released it on purpose: its exit is no loss. */
  ended: boolean;
  killedFor: KilledFor | null;
  /** The modes and models its agent offers, and the ones it runs with now (acp-turn-settings.ts). */
  settings: AcpSessionSettings;
  /** Whether the last prompt on it was cancelled (claude-agent-acp's cancel race: see acp-adapter.ts). */
  cancelledBefore: boolean;
}
