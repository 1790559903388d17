import { readFileSync } from 'node:fs';
import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import type { ProviderHost } from '../../actors/provider-host.js';
import type { ForkOrigin } from '../../domain/entities.js';
import { BatonError } from '../../domain/errors.js';
import type { ClaudeSessionDirs } from '../claude/claude-environment.js';
import { copyTranscript, transcriptOf } from '../claude/claude-sessions.js';
import { agentThreadDir, type AcpAgent } from './acp-agents.js';

/**
 * A native fork of an ACP thread on an agent that keeps Claude Code's session transcripts
 * (claude-agent-acp). Each thread's agent has its own `CLAUDE_CONFIG_DIR`, so the source
 * session's transcript is copied into the fork thread's first; then `session/fork` makes a
 * new session of it in the fork's agent, cut at the end of the source run when that run was
 * not the source session's last (`_meta.claudeCode.options.resumeSessionAt`, which the agent
 * passes through to the SDK). The source's files are only read.
 */

/** Where a fork starts: the source session, and the chain entry it keeps up to (null: the session's end). */
export interface AcpForkPoint {
  sourceSessionId: string;
  at: string | null;
}

/**
 * Readies a fork thread's agent folder for `session/fork`: the fork point in the source's
 * session, and the source's transcript copied in. An agent whose transcripts Baton does not
 * know where to find cannot fork another thread's session (typed).
 */
export function prepareFork(
  host: ProviderHost,
  agent: AcpAgent,
  dataDir: string,
  threadId: string,
  fork: ForkOrigin,
): AcpForkPoint {
  const transcriptDirs = agent.transcriptDirs;
  if (!transcriptDirs)
    throw new BatonError('unsupported', `the ACP agent ${agent.name} cannot fork another thread's session`);
  const dirsOf = (thread: string) =>
    transcriptDirs({ threadId: thread, dir: agentThreadDir(dataDir, agent.name, thread) });
  const sourceDirs = dirsOf(fork.sourceThreadId);
  const point = acpForkPoint(host, fork, sourceDirs);
  copySourceTranscript(sourceDirs, dirsOf(threadId), point.sourceSessionId);
  return point;
}

/** The params of `session/fork` for this point, in the fork thread's cwd, with Baton's MCP servers (acp-mcp.ts). */
export function forkParams(point: AcpForkPoint, cwd: string, mcpServers: acp.McpServer[]) {
  return {
    sessionId: point.sourceSessionId,
    cwd,
    mcpServers,
    ...(point.at ? { _meta: { claudeCode: { options: { resumeSessionAt: point.at } } } } : {}),
  };
}

/**
 * The fork point of a fork origin: the end of the source run in its provider thread's session.
 * The source session's prompts are matched to Baton's attempts on that provider thread, in
 * order; a transcript whose prompts do not match them one for one cannot be cut truthfully,
 * and the fork is refused (typed) rather than started at a wrong turn.
 */
export function acpForkPoint(host: ProviderHost, fork: ForkOrigin, sourceDirs: ClaudeSessionDirs): AcpForkPoint {
  const sourceSessionId = fork.sourceProviderThreadId ? host.nativeThreadRef(fork.sourceProviderThreadId) : null;
  if (fork.sourceProvider !== 'acp' || !sourceSessionId)
    throw new BatonError('unsupported', 'this fork cannot be resolved natively: its source is no ACP session');
  const attempts = host
    .runs(fork.sourceThreadId)
    .flatMap((r) => r.attempts)
    .filter((a) => a.providerThreadId === fork.sourceProviderThreadId);
  const source =
    fork.sourceAttemptId !== null
      ? attempts.findIndex((a) => a.id === fork.sourceAttemptId)
      : attempts.findLastIndex((a) => a.runId === fork.sourceRunId);
  if (source < 0)
    throw new BatonError(
      'unsupported',
      `the source run ${fork.sourceRunId} ran no turn in ACP session ${sourceSessionId}`,
    );
  // The source run is the session's last: the fork is the whole session.
  if (source === attempts.length - 1) return { sourceSessionId, at: null };
  const transcript = transcriptOf(sourceDirs, sourceSessionId);
  if (!transcript) throw new BatonError('not_found', `no transcript of ACP session ${sourceSessionId} to cut`);
  const entries = readEntries(transcript.path);
  const prompts = entries.flatMap((e, i) => (isPrompt(e) ? [i] : []));
  if (prompts.length !== attempts.length)
    throw new BatonError(
      'unsupported',
      `ACP session ${sourceSessionId} has ${prompts.length} prompts for ${attempts.length} turns of Baton's: the end of run ${fork.sourceRunId} cannot be placed`,
    );
  const kept = entries.slice(0, prompts[source + 1]).filter((e) => e.type === 'assistant' && !e.isSidechain);
  const at = kept.at(-1)?.uuid;
  if (!at)
    throw new BatonError('provider_error', `the source run's turn has no reply in ACP session ${sourceSessionId}`);
  return { sourceSessionId, at };
}

/**
 * Puts the source session's transcript where the fork thread's agent finds it. A source with
 * no transcript (a replayed agent writes none) is left to the agent: `session/fork` then
 * answers "Resource not found", which fails the fork typed.
 */
export function copySourceTranscript(from: ClaudeSessionDirs, to: ClaudeSessionDirs, sessionId: string): void {
  if (transcriptOf(from, sessionId)) copyTranscript(from, to, sessionId);
}

/** The transcript line fields the cut reads (the edge: anything else passes). */
const Entry = z.looseObject({
  type: z.string(),
  uuid: z.string().optional(),
  isSidechain: z.boolean().optional(),
  isMeta: z.boolean().optional(),
  message: z.looseObject({ content: z.unknown() }).optional(),
});
type Entry = z.infer<typeof Entry>;

function readEntries(path: string): Entry[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line) => {
      if (!line.trim()) return [];
      try {
        const parsed = Entry.safeParse(JSON.parse(line));
        return parsed.success ? [parsed.data] : [];
      } catch {
        return [];
      }
    });
}

const ToolResult = z.looseObject({ type: z.literal('tool_result') });

/** A prompt Baton sent: a user entry of the main chain that is no tool result and no meta note. */
function isPrompt(e: Entry): boolean {
  if (e.type !== 'user' || e.isSidechain || e.isMeta || !e.uuid || !e.message) return false;
  const content = e.message.content;
  if (typeof content === 'string') return true;
  return Array.isArray(content) && !content.some((block) => ToolResult.safeParse(block).success);
}
