import { ProviderCapabilities } from '../../domain/capabilities.js';

/**
 * What Baton's Claude adapter carries out, versioned by the agent it was verified against
 * (docs/claude.md has the measurements). Each true flag is backed by a test
 * (test/providers/claude-capabilities.test.ts names them). False where the adapter does
 * not do it, even where the agent could: native steering (a message sent while text
 * streams becomes the next turn), tool items in `tools.*` (mapped as nodes, but the shared
 * scenarios for them are Codex's tools), subagent threads of their own, handoffs.
 */
export const claudeCapabilities: ProviderCapabilities = ProviderCapabilities.parse({
  version: 'claude-agent-sdk/0.3.332',
  sessions: {
    supportsMultipleProviderThreadsPerSession: false,
    supportsModelSwitchInSession: true,
    supportsProviderSwitchingViaHandoff: false,
    supportsRuntimeModeSwitchInSession: true,
    pendingRequestsSurviveRestart: false,
  },
  // The session id is the native thread (resumed by id after its process is gone).
  threads: {
    canCreateEmptyThread: true,
    canReadThreadSnapshot: false,
    // Both by a new session resuming another up to a chain entry (`resumeSessionAt` + `forkSession`): claude-conversation.ts.
    canRollbackThread: true,
    canForkThread: true,
    canForkFromTurn: true,
    canForkFromSubagentThread: false,
    exposesNativeThreadId: true,
  },
  // A turn's native id is the uuid Baton gives the user message; the agent echoes it (`user_message_uuid`).
  turns: {
    exposesNativeTurnId: true,
    emitsTurnStarted: true,
    emitsTurnCompleted: true,
    supportsInterrupt: true,
    // A message sent mid-turn is folded into a running tool's result, but during streamed text the
    // agent queues it as the next turn: it does not reliably land in the running turn. Interrupt and restart does.
    supportsActiveSteering: false,
    supportsSteeringByInterruptRestart: true,
    supportsQueuedMessages: false,
    terminalStatusQuality: 'strong',
  },
  streaming: {
    streamsAssistantText: true,
    // Thinking blocks stream as `thinking_delta`s into a reasoning node.
    streamsReasoning: true,
    streamsToolOutput: false,
    streamsPlanText: false,
    emitsMessageCompleted: true,
  },
  // A tool use is a tool node keyed by its tool_use id, started by the use and completed (or
  // failed) by its tool_result, whose text is the node's output (scenario tool_call); the output
  // comes whole, never streamed. The user's MCP servers (stdio) are the agent's, and their
  // tools' calls are MCP tool nodes (scenario mcp_tool_call).
  tools: {
    exposesToolItemIds: true,
    emitsToolStarted: true,
    emitsToolCompleted: true,
    emitsToolOutput: true,
    supportsMcpTools: true,
    supportsDynamicToolCallbacks: false,
  },
  // `canUseTool` asks for Bash (and every other tool needing permission), keyed by its tool_use id.
  approvals: {
    supportsCommandApproval: true,
    supportsFileReadApproval: false,
    supportsFileChangeApproval: false,
    supportsApplyPatchApproval: false,
    approvalsHaveNativeRequestIds: true,
    // `canUseTool` is a callback into the live query: it dies with the agent process (and with Baton).
    approvalCallbacksAreLiveOnly: true,
    // A subagent's asks reach `canUseTool` (with its agent id): requests under its tool's node (claude-subagents.ts).
    approvalsCanOriginateFromSubagents: true,
    // A declined tool use is a tool result the model reads and answers (approval_decline).
    declineContinuesTurn: true,
  },
  planning: {
    emitsPlanUpdated: true,
    emitsTodoList: true,
    // ExitPlanMode's plan (the agent's plan file) is a final proposed plan, whole: no plan deltas.
    emitsProposedPlan: true,
    // AskUserQuestion is a user-input request, answered by question text.
    supportsStructuredQuestions: true,
    planDeltasHaveItemIds: false,
  },
  // The `Agent` tool's subagents are subagent nodes: `task_started` / `parent_tool_use_id` / `task_notification`
  // (claude-subagents.ts). A subagent has no provider thread of Baton's (its transcript lives in the parent session).
  subagents: {
    supportsSubagents: true,
    exposesSubagentThreadIds: false,
    emitsSubagentLifecycle: true,
    canWaitForSubagents: false,
    // A Stop stops them: the agent's interrupt ends every background task of its own (claude-adapter.ts, stopAgentWork).
    canCloseSubagents: true,
    canForkSubagentThread: false,
    // Each Agent call is a child of its own, with no native thread Baton could roll back.
    canRollbackSubagentThread: false,
  },
  // A reseed is sent (as user text); no handoff between providers yet.
  context: {
    acceptsSystemContext: false,
    acceptsDeveloperContext: false,
    // A replacement provider thread's first message carries Baton's account of the earlier runs, as user text.
    acceptsSyntheticUserContext: true,
    canGenerateSummaries: false,
    canConsumeHandoffSummaries: true,
    supportsDeltaHandoff: false,
    supportsFullThreadHandoff: false,
    maxRecommendedHandoffChars: 40_000,
  },
  checkpointing: {
    appCanCheckpointFilesystem: true,
    // A subagent node ends -> its own checkpoint scope is captured (execution-node.machine.ts).
    supportsNestedCheckpointScopes: true,
    providerCanRollbackConversation: true,
    providerRollbackReturnsSnapshot: false,
    providerCanReadConversationSnapshot: false,
  },
  identity: { nativeThreadIds: 'strong', nativeTurnIds: 'weak', nativeItemIds: 'none', nativeRequestIds: 'weak' },
});
