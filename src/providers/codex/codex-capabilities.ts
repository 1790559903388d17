import { ProviderCapabilities } from '../../domain/capabilities.js';

/**
 * What Baton's Codex adapter carries out, versioned by the protocol it was verified
 * against (DESIGN.md section 5); each true flag is backed by a test
 * (test/providers/codex-capabilities.test.ts names them). What the adapter does not do
 * is false even where Codex itself could (dynamic tool callbacks are not answered; Baton
 * neither waits on, closes nor forks a subagent itself). It is re-declared when Codex's
 * protocol version changes.
 */
export const codexCapabilities: ProviderCapabilities = ProviderCapabilities.parse({
  version: 'codex-app-server/0.169.0',
  // One native thread per session at a time: the adapter replaces a thread, it does not multiplex them.
  sessions: {
    supportsMultipleProviderThreadsPerSession: false,
    supportsModelSwitchInSession: true,
    supportsProviderSwitchingViaHandoff: false,
    supportsRuntimeModeSwitchInSession: true,
    pendingRequestsSurviveRestart: false,
  },
  threads: {
    canCreateEmptyThread: true,
    canReadThreadSnapshot: true,
    canRollbackThread: true,
    canForkThread: true,
    canForkFromTurn: true,
    canForkFromSubagentThread: true,
    exposesNativeThreadId: true,
  },
  turns: {
    exposesNativeTurnId: true,
    emitsTurnStarted: true,
    emitsTurnCompleted: true,
    supportsInterrupt: true,
    supportsActiveSteering: true,
    supportsSteeringByInterruptRestart: true,
    supportsQueuedMessages: false,
    terminalStatusQuality: 'strong',
  },
  streaming: {
    streamsAssistantText: true,
    streamsReasoning: true,
    streamsToolOutput: true,
    streamsPlanText: true,
    emitsMessageCompleted: true,
  },
  // Dynamic tool callbacks (item/tool/call) are not answered.
  tools: {
    exposesToolItemIds: true,
    emitsToolStarted: true,
    emitsToolCompleted: true,
    emitsToolOutput: true,
    supportsMcpTools: true,
    supportsDynamicToolCallbacks: false,
  },
  approvals: {
    supportsCommandApproval: true,
    supportsFileReadApproval: false,
    supportsFileChangeApproval: true,
    supportsApplyPatchApproval: true,
    approvalsHaveNativeRequestIds: true,
    approvalCallbacksAreLiveOnly: true,
    // A subagent's approvals come on the same connection, on its own thread: requests on its nodes.
    approvalsCanOriginateFromSubagents: true,
    // A declined command is reported to the model, which answers on (approval_decline).
    declineContinuesTurn: true,
  },
  planning: {
    emitsPlanUpdated: true,
    emitsTodoList: true,
    emitsProposedPlan: true,
    supportsStructuredQuestions: true,
    planDeltasHaveItemIds: true,
  },
  // Multi-agent subagents are subagent nodes, each bound to its native child thread (codex-subagents.ts).
  subagents: {
    supportsSubagents: true,
    exposesSubagentThreadIds: true,
    emitsSubagentLifecycle: true,
    canWaitForSubagents: false,
    canCloseSubagents: false,
    canForkSubagentThread: false,
    // Codex 0.169.0 refuses `thread/revert` of a multi_agent_v2 child ("direct app-server input is
    // not allowed"), loaded or resumed through its parent (codex-subagents-live.test.ts; docs/codex.md).
    canRollbackSubagentThread: false,
  },
  // Context reaches Codex as user text (a reseed); developer instructions are not sent, and there is no delta handoff yet.
  context: {
    acceptsSystemContext: false,
    acceptsDeveloperContext: false,
    acceptsSyntheticUserContext: true,
    canGenerateSummaries: false,
    canConsumeHandoffSummaries: true,
    supportsDeltaHandoff: false,
    supportsFullThreadHandoff: true,
    maxRecommendedHandoffChars: 40_000,
  },
  // thread/revert answers metadata only: what it kept is read back separately.
  checkpointing: {
    appCanCheckpointFilesystem: true,
    supportsNestedCheckpointScopes: true,
    providerCanRollbackConversation: true,
    providerRollbackReturnsSnapshot: false,
    providerCanReadConversationSnapshot: true,
  },
  identity: { nativeThreadIds: 'strong', nativeTurnIds: 'strong', nativeItemIds: 'strong', nativeRequestIds: 'strong' },
});
