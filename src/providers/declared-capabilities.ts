import { ProviderCapabilities } from '../domain/capabilities.js';
import type { ProviderKind } from '../domain/statuses.js';

/**
 * The capabilities each adapter declares, versioned. These follow what was verified on
 * this machine (DESIGN.md section 5); an adapter re-declares them when its protocol
 * version changes.
 */
const codex: ProviderCapabilities = ProviderCapabilities.parse({
  version: 'codex-app-server/0.169.0',
  sessions: { supportsMultipleProviderThreadsPerSession: true, supportsModelSwitchInSession: true, supportsProviderSwitchingViaHandoff: true, supportsRuntimeModeSwitchInSession: true, pendingRequestsSurviveRestart: false },
  threads: { canCreateEmptyThread: true, canReadThreadSnapshot: true, canRollbackThread: true, canForkThread: true, canForkFromTurn: true, canForkFromSubagentThread: true, exposesNativeThreadId: true },
  turns: { exposesNativeTurnId: true, emitsTurnStarted: true, emitsTurnCompleted: true, supportsInterrupt: true, supportsActiveSteering: true, supportsSteeringByInterruptRestart: true, supportsQueuedMessages: false, terminalStatusQuality: 'strong' },
  streaming: { streamsAssistantText: true, streamsReasoning: true, streamsToolOutput: true, streamsPlanText: true, emitsMessageCompleted: true },
  tools: { exposesToolItemIds: true, emitsToolStarted: true, emitsToolCompleted: true, emitsToolOutput: true, supportsMcpTools: true, supportsDynamicToolCallbacks: true },
  approvals: { supportsCommandApproval: true, supportsFileReadApproval: false, supportsFileChangeApproval: true, supportsApplyPatchApproval: true, approvalsHaveNativeRequestIds: true, approvalCallbacksAreLiveOnly: true, approvalsCanOriginateFromSubagents: true },
  planning: { emitsPlanUpdated: true, emitsTodoList: true, emitsProposedPlan: true, supportsStructuredQuestions: true, planDeltasHaveItemIds: true },
  subagents: { supportsSubagents: true, exposesSubagentThreadIds: true, emitsSubagentLifecycle: true, canWaitForSubagents: true, canCloseSubagents: true, canForkSubagentThread: true },
  context: { acceptsSystemContext: false, acceptsDeveloperContext: true, acceptsSyntheticUserContext: true, canGenerateSummaries: false, canConsumeHandoffSummaries: true, supportsDeltaHandoff: true, supportsFullThreadHandoff: true, maxRecommendedHandoffChars: 40_000 },
  checkpointing: { appCanCheckpointFilesystem: true, supportsNestedCheckpointScopes: true, providerCanRollbackConversation: true, providerRollbackReturnsSnapshot: true, providerCanReadConversationSnapshot: true },
  identity: { nativeThreadIds: 'strong', nativeTurnIds: 'strong', nativeItemIds: 'strong', nativeRequestIds: 'strong' },
});

const claude: ProviderCapabilities = ProviderCapabilities.parse({
  ...codex,
  version: 'claude-agent-sdk/0.3.332',
  sessions: { ...codex.sessions, supportsMultipleProviderThreadsPerSession: false },
  threads: { ...codex.threads, canCreateEmptyThread: false, canRollbackThread: false, canForkFromTurn: false },
  turns: { ...codex.turns, exposesNativeTurnId: false, emitsTurnStarted: false, supportsActiveSteering: false, supportsQueuedMessages: true, terminalStatusQuality: 'strong' },
  planning: { ...codex.planning, planDeltasHaveItemIds: false },
  checkpointing: { ...codex.checkpointing, providerCanRollbackConversation: false, providerRollbackReturnsSnapshot: false },
  identity: { nativeThreadIds: 'strong', nativeTurnIds: 'none', nativeItemIds: 'strong', nativeRequestIds: 'weak' },
});

const acp: ProviderCapabilities = ProviderCapabilities.parse({
  ...claude,
  version: 'acp/1',
  turns: { ...claude.turns, supportsActiveSteering: false, supportsQueuedMessages: false, terminalStatusQuality: 'weak' },
  subagents: { supportsSubagents: false, exposesSubagentThreadIds: false, emitsSubagentLifecycle: false, canWaitForSubagents: false, canCloseSubagents: false, canForkSubagentThread: false },
  identity: { nativeThreadIds: 'strong', nativeTurnIds: 'none', nativeItemIds: 'weak', nativeRequestIds: 'weak' },
});

export const declaredCapabilities: Record<ProviderKind, ProviderCapabilities> = { codex, claude, acp };
