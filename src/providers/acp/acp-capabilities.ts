import { z } from 'zod';
import { ProviderCapabilities } from '../../domain/capabilities.js';
import { parseOrThrow } from '../../domain/errors.js';

/**
 * An ACP agent's capabilities as Baton declares them, computed from what the agent
 * advertises in `initialize` and from what this adapter carries out. A flag is true only
 * where both hold; what the agent offers that the adapter does not use yet (list, modes,
 * models, MCP over http or sse) is kept in `AcpAgentFeatures`, never declared.
 */

const Present = z.looseObject({}).nullable().optional();

/** The part of `initialize`'s answer Baton reads (the edge: anything else passes). */
export const AcpInitializeResponse = z.looseObject({
  protocolVersion: z.number().int(),
  agentCapabilities: z
    .looseObject({
      loadSession: z.boolean().optional(),
      promptCapabilities: z
        .looseObject({
          image: z.boolean().optional(),
          audio: z.boolean().optional(),
          embeddedContext: z.boolean().optional(),
        })
        .optional(),
      mcpCapabilities: z.looseObject({ http: z.boolean().optional(), sse: z.boolean().optional() }).optional(),
      sessionCapabilities: z.looseObject({ list: Present, resume: Present, fork: Present, close: Present }).optional(),
    })
    .optional(),
  agentInfo: z.looseObject({ name: z.string(), version: z.string() }).nullable().optional(),
});
export type AcpInitializeResponse = z.infer<typeof AcpInitializeResponse>;

/** What the agent advertised, in Baton's words. */
export interface AcpAgentFeatures {
  agent: string;
  version: string;
  /** How a stored session is taken up again: `session/resume` (no replay) first, else `session/load`. */
  resume: 'resume' | 'load' | null;
  fork: boolean;
  list: boolean;
  prompt: { image: boolean; audio: boolean; embeddedContext: boolean };
  mcp: { stdio: true; http: boolean; sse: boolean };
}

export function acpAgentFeatures(response: unknown): AcpAgentFeatures {
  const init = parseOrThrow(AcpInitializeResponse, response, 'provider_error', 'the ACP initialize response');
  const caps = init.agentCapabilities ?? {};
  const sessions = caps.sessionCapabilities ?? {};
  return {
    agent: init.agentInfo?.name ?? 'unknown',
    version: init.agentInfo?.version ?? 'unknown',
    resume: sessions.resume ? 'resume' : caps.loadSession ? 'load' : null,
    fork: Boolean(sessions.fork),
    list: Boolean(sessions.list),
    prompt: {
      image: caps.promptCapabilities?.image ?? false,
      audio: caps.promptCapabilities?.audio ?? false,
      embeddedContext: caps.promptCapabilities?.embeddedContext ?? false,
    },
    mcp: { stdio: true, http: caps.mcpCapabilities?.http ?? false, sse: caps.mcpCapabilities?.sse ?? false },
  };
}

/**
 * Measured, not advertised: codex-acp (0.16.0) offers no reject option that lets the turn go
 * on. Its only one, `abort`, ends the prompt `cancelled` without asking the model again, so a
 * declined command does not run and its run ends interrupted: command approval is declared
 * (the asks reach Baton and are answered), a decline that carries on is not
 * (`declineContinuesTurn`; its scenario is approval_decline_ends_turn).
 */
const declineEndsTurn = (features: AcpAgentFeatures): boolean => features.agent === 'codex-acp';

/**
 * Measured, not advertised (modes and models come with `session/new`, after `initialize`):
 * claude-agent-acp offers `models` and `session/set_model`, codex-acp neither; both offer a
 * session mode for every runtime mode (acp-turn-settings.ts). Other agents: refused at the turn.
 */
const setsModel = (features: AcpAgentFeatures): boolean => features.agent === '@zed-industries/claude-agent-acp';
const setsRuntimeMode = (features: AcpAgentFeatures): boolean => setsModel(features) || features.agent === 'codex-acp';

/**
 * A fork of another thread's session needs the source's transcript in the fork's agent (each
 * thread's agent has its own config dir): Baton copies it where claude-agent-acp keeps them,
 * then `session/fork`, cut at the source run's end (acp-fork.ts). Other agents' session
 * stores are their own, so their advertised fork is not declared.
 */
const forksAcrossThreads = (features: AcpAgentFeatures): boolean =>
  features.fork && features.agent === '@zed-industries/claude-agent-acp';

/**
 * Measured, not advertised: claude-agent-acp reports every tool call it makes (the shared
 * tool_call scenario passes on it live and replayed: acp-tool-calls.ts), but codex-acp 0.16.0
 * sends no `tool_call` for a command Codex runs without asking (the same scenario: both
 * commands ran, the model read their output, and only usage updates came), so its tool
 * nodes are not declared.
 */
const reportsToolCalls = (features: AcpAgentFeatures): boolean => features.agent === '@zed-industries/claude-agent-acp';

/**
 * Every session is opened with Baton's MCP servers (stdio, which every agent runs), but only
 * these agents' MCP calls are known as such on their tool nodes (acp-mcp.ts, as recorded):
 * the mcp_tool_call scenario passes on them live and replayed. Other agents' calls are plain
 * tool calls, so MCP tools are not declared for them.
 */
const runsMcpTools = (features: AcpAgentFeatures): boolean =>
  features.agent === '@zed-industries/claude-agent-acp' || features.agent === 'codex-acp';

/**
 * Measured, not advertised (plan mode is a session mode, offered after `initialize`): in a
 * plan-mode thread, claude-agent-acp asks to leave plan mode with a `switch_mode` tool call
 * carrying the plan, which Baton records as the proposed plan and answers "keep planning"
 * (acp-proposed-plan.ts): proposed_plan passes on it live and replayed. codex-acp offers no
 * plan mode (acp-turn-settings.ts); other agents' plan modes are unmeasured.
 */
const proposesPlans = (features: AcpAgentFeatures): boolean => features.agent === '@zed-industries/claude-agent-acp';

/** Baton's declaration for threads on this agent (see the header). */
export function acpCapabilities(features: AcpAgentFeatures): ProviderCapabilities {
  return ProviderCapabilities.parse({
    version: `acp/${features.agent}@${features.version}`,
    sessions: {
      supportsMultipleProviderThreadsPerSession: false,
      // session/set_model and session/set_mode before a turn's prompt, where the agent offers them.
      supportsModelSwitchInSession: setsModel(features),
      supportsProviderSwitchingViaHandoff: false,
      supportsRuntimeModeSwitchInSession: setsRuntimeMode(features),
      pendingRequestsSurviveRestart: false,
    },
    // The session id is the native thread, bound to the provider thread and resumed by id.
    threads: {
      canCreateEmptyThread: false,
      canReadThreadSnapshot: false,
      canRollbackThread: false,
      // session/fork in the fork thread's agent, at the end of the source run (acp-fork.ts).
      canForkThread: forksAcrossThreads(features),
      canForkFromTurn: forksAcrossThreads(features),
      canForkFromSubagentThread: false,
      exposesNativeThreadId: features.resume !== null,
    },
    // A turn is one session/prompt: Baton's request starts it, its stop reason ends it. ACP names no turn ids.
    turns: {
      exposesNativeTurnId: false,
      emitsTurnStarted: true,
      emitsTurnCompleted: true,
      supportsInterrupt: true,
      supportsActiveSteering: false,
      // ACP has no steering: the runtime's fallback interrupts (session/cancel) and starts a replacement prompt.
      supportsSteeringByInterruptRestart: true,
      supportsQueuedMessages: false,
      terminalStatusQuality: 'strong',
    },
    streaming: {
      streamsAssistantText: true,
      streamsReasoning: true,
      streamsToolOutput: false,
      streamsPlanText: false,
      emitsMessageCompleted: true,
    },
    tools: {
      exposesToolItemIds: reportsToolCalls(features),
      emitsToolStarted: reportsToolCalls(features),
      emitsToolCompleted: reportsToolCalls(features),
      emitsToolOutput: reportsToolCalls(features),
      supportsMcpTools: runsMcpTools(features),
      supportsDynamicToolCallbacks: false,
    },
    // session/request_permission, whatever the tool: the request's kind follows the tool call's kind.
    approvals: {
      supportsCommandApproval: true,
      supportsFileReadApproval: false,
      supportsFileChangeApproval: true,
      supportsApplyPatchApproval: false,
      approvalsHaveNativeRequestIds: false,
      approvalCallbacksAreLiveOnly: true,
      approvalsCanOriginateFromSubagents: false,
      declineContinuesTurn: !declineEndsTurn(features),
    },
    planning: {
      // The agent's `plan` updates are the todo list.
      emitsPlanUpdated: true,
      emitsTodoList: true,
      emitsProposedPlan: proposesPlans(features),
      // Neither built-in agent can ask over ACP (docs/acp.md, "Measured on this machine").
      supportsStructuredQuestions: false,
      planDeltasHaveItemIds: false,
    },
    subagents: {
      supportsSubagents: false,
      exposesSubagentThreadIds: false,
      emitsSubagentLifecycle: false,
      canWaitForSubagents: false,
      canCloseSubagents: false,
      canForkSubagentThread: false,
      canRollbackSubagentThread: false,
    },
    context: {
      acceptsSystemContext: false,
      acceptsDeveloperContext: false,
      // A replacement session's first prompt carries Baton's account of the earlier runs, as user text.
      acceptsSyntheticUserContext: true,
      canGenerateSummaries: false,
      canConsumeHandoffSummaries: true,
      supportsDeltaHandoff: false,
      supportsFullThreadHandoff: false,
      maxRecommendedHandoffChars: 40_000,
    },
    checkpointing: {
      // Baton's own git checkpoints around every run, whatever the agent: a rollback restores the files.
      appCanCheckpointFilesystem: true,
      supportsNestedCheckpointScopes: false,
      providerCanRollbackConversation: false,
      providerRollbackReturnsSnapshot: false,
      providerCanReadConversationSnapshot: false,
    },
    identity: {
      nativeThreadIds: features.resume !== null ? 'strong' : 'weak',
      nativeTurnIds: 'none',
      nativeItemIds: 'weak',
      nativeRequestIds: 'none',
    },
  });
}

/**
 * The declaration the registry holds for provider `acp` before any agent answered: what
 * every agent gets (the registry has one declaration per provider, not per thread).
 */
export const acpBaseCapabilities: ProviderCapabilities = acpCapabilities({
  agent: 'any',
  version: 'acp-1',
  resume: null,
  fork: false,
  list: false,
  prompt: { image: false, audio: false, embeddedContext: false },
  mcp: { stdio: true, http: false, sse: false },
});
