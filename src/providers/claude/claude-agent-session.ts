import {
  query,
  type CanUseTool,
  type OnElicitation,
  type Options,
  type Query,
  type SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import type { ProviderSessionId, ProviderThreadId, ThreadId } from '../../domain/ids.js';
import type { ResumeWatch } from './claude-conversation.js';
import type { ClaudeNormalizer } from './claude-normalizer.js';
import type { Escalation } from './claude-turn-clocks.js';
import type { FrameLogging } from '../transport/frame-logged-channel.js';
import { frameLoggedProcess } from './claude-logged-process.js';
import { spawnAgent, type AgentProcess, type AgentProcessFactory } from './claude-process.js';

/** One live agent: the user messages waiting to be handed over, its normalizer, its process. */
export interface AgentState extends ResumeWatch {
  sessionId: ProviderSessionId;
  normalizer: ClaudeNormalizer;
  /** The provider thread it was started (or resumed) for. */
  providerThreadId: ProviderThreadId | null;
  inbox: SDKUserMessage[];
  wake: (() => void) | null;
  ended: boolean;
  child: AgentProcess | null;
  exited: Promise<void>;
  stderr: string;
  /** Set when Baton killed the process because it did not answer in time: how its run ends. */
  killedFor: Escalation | null;
}

/** ...and its query. */
export interface AgentSession extends AgentState {
  query: Query;
  /** Settles once its messages are read to the end and its end is reported. */
  pumped: Promise<void>;
}

export interface AgentSessionInput {
  threadId: ThreadId;
  sessionId: ProviderSessionId;
  normalizer: ClaudeNormalizer;
  providerThreadId: ProviderThreadId | null;
  /** The session id it goes on with, if any. */
  resumed: string | null;
  /** The SDK options (without the prompt and the spawner, which this adds). */
  options: Options;
  /** Built from the session's state, so a permission ask knows the session it came from. */
  canUseTool: (state: AgentState) => CanUseTool;
  /** The same for an MCP server's form. */
  onElicitation: (state: AgentState) => OnElicitation;
  processFor?: AgentProcessFactory | undefined;
  /** Where the agent process's frames go, both ways (a recorded or replayed one's too). */
  frames?: FrameLogging | undefined;
}

/**
 * Starts one agent: a streaming-input `query()` whose prompt is the session's inbox (user
 * messages handed over as the SDK asks for them), and whose process is held here (its pid,
 * its stderr tail, its exit), spawned for real or given by a record/replay factory.
 */
export function startAgentSession(input: AgentSessionInput): AgentSession {
  let markExited: () => void = () => undefined;
  const state: AgentState = {
    sessionId: input.sessionId,
    normalizer: input.normalizer,
    providerThreadId: input.providerThreadId,
    inbox: [],
    wake: null,
    ended: false,
    child: null,
    exited: new Promise<void>((resolve) => (markExited = resolve)),
    stderr: '',
    resumed: input.resumed,
    began: false,
    refusal: null,
    killedFor: null,
  };
  const running = query({
    prompt: inbox(state),
    options: {
      ...input.options,
      canUseTool: input.canUseTool(state),
      onElicitation: input.onElicitation(state),
      spawnClaudeCodeProcess: (spawnOptions) => {
        const real = () => spawnAgent(spawnOptions);
        const given = input.processFor
          ? input.processFor({ threadId: input.threadId, sessionId: input.sessionId, options: spawnOptions }, real)
          : real();
        const child = input.frames ? frameLoggedProcess(given, input.frames) : given;
        state.child = child;
        child.stderr?.on('data', (chunk: Buffer) => (state.stderr = (state.stderr + String(chunk)).slice(-4000)));
        child.once('exit', () => markExited());
        child.once('error', () => markExited());
        return child;
      },
    },
  });
  return Object.assign(state, { query: running, pumped: Promise.resolve() });
}

/** The user messages of a session, handed to the SDK as it asks for them. */
async function* inbox(session: AgentState): AsyncGenerator<SDKUserMessage> {
  while (!session.ended) {
    const next = session.inbox.shift();
    if (next) yield next;
    else await new Promise<void>((resolve) => (session.wake = resolve));
  }
}

/** Hands a user message to the agent. */
export function handOver(session: AgentState, message: SDKUserMessage): void {
  session.inbox.push(message);
  session.wake?.();
}
