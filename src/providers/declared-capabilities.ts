import { ProviderCapabilities } from '../domain/capabilities.js';
import type { ProviderKind } from '../domain/statuses.js';

/**
 * The capabilities each adapter declares, versioned. These follow what was verified on
 * this machine (DESIGN.md section 5); an adapter re-declares them when its protocol
 * version changes.
 *
 * Codex: what Baton's Codex adapter carries out, each true flag backed by a test
 * (test/providers/codex-capabilities.test.ts names them); what it does not do is false
 * even where Codex itself could (subagents and dynamic tool callbacks are not mapped yet).
 */
const codex: ProviderCapabilities = ProviderCapabilities.parse({
  version: 'codex-app-server/0.169.0',
  // One native thread per session at a time: the adapter replaces a thread, it does not multiplex them.
  sessions: { supportsMultipleProviderThreadsPerSession: false, supportsModelSwitchInSession: true, supportsProviderSwitchingViaHandoff: false, supportsRuntimeModeSwitchInSession: true, pendingRequestsSurviveRestart: false },
  threads: { canCreateEmptyThread: true, canReadThreadSnapshot: true, canRollbackThread: true, canForkThread: true, canForkFromTurn: true, canForkFromSubagentThread: false, exposesNativeThreadId: true },
  turns: { exposesNativeTurnId: true, emitsTurnStarted: true, emitsTurnCompleted: true, supportsInterrupt: true, supportsActiveSteering: true, supportsSteeringByInterruptRestart: true, supportsQueuedMessages: false, terminalStatusQuality: 'strong' },
  streaming: { streamsAssistantText: true, streamsReasoning: true, streamsToolOutput: true, streamsPlanText: true, emitsMessageCompleted: true },
  // Dynamic tool callbacks (item/tool/call) are not answered.
  tools: { exposesToolItemIds: true, emitsToolStarted: true, emitsToolCompleted: true, emitsToolOutput: true, supportsMcpTools: true, supportsDynamicToolCallbacks: false },
  approvals: { supportsCommandApproval: true, supportsFileReadApproval: false, supportsFileChangeApproval: true, supportsApplyPatchApproval: true, approvalsHaveNativeRequestIds: true, approvalCallbacksAreLiveOnly: true, approvalsCanOriginateFromSubagents: false },
  planning: { emitsPlanUpdated: true, emitsTodoList: true, emitsProposedPlan: true, supportsStructuredQuestions: true, planDeltasHaveItemIds: true },
  subagents: { supportsSubagents: false, exposesSubagentThreadIds: false, emitsSubagentLifecycle: false, canWaitForSubagents: false, canCloseSubagents: false, canForkSubagentThread: false },
  // Context reaches Codex as user text (a reseed); developer instructions are not sent, and there is no delta handoff yet.
  context: { acceptsSystemContext: false, acceptsDeveloperContext: false, acceptsSyntheticUserContext: true, canGenerateSummaries: false, canConsumeHandoffSummaries: true, supportsDeltaHandoff: false, supportsFullThreadHandoff: true, maxRecommendedHandoffChars: 40_000 },
  // thread/revert answers metadata only: what it kept is read back separately.
  checkpointing: { appCanCheckpointFilesystem: true, supportsNestedCheckpointScopes: true, providerCanRollbackConversation: true, providerRollbackReturnsSnapshot: false, providerCanReadConversationSnapshot: true },
  identity: { nativeThreadIds: 'strong', nativeTurnIds: 'strong', nativeItemIds: 'strong', nativeRequestIds: 'strong' },
});

const claude: ProviderCapabilities = ProviderCapabilities.parse({
  ...codex,
  version: 'claude-agent-sdk/0.3.332',
  // What the Agent SDK offers (its adapter is not written yet), where it differs from Codex's adapter.
  sessions: { ...codex.sessions, supportsMultipleProviderThreadsPerSession: false, supportsProviderSwitchingViaHandoff: true },
  threads: { ...codex.threads, canCreateEmptyThread: false, canRollbackThread: false, canForkFromTurn: false, canForkFromSubagentThread: true },
  tools: { ...codex.tools, supportsDynamicToolCallbacks: true },
  approvals: { ...codex.approvals, approvalsCanOriginateFromSubagents: true },
  subagents: { supportsSubagents: true, exposesSubagentThreadIds: true, emitsSubagentLifecycle: true, canWaitForSubagents: true, canCloseSubagents: true, canForkSubagentThread: true },
  context: { ...codex.context, acceptsDeveloperContext: true, supportsDeltaHandoff: true },
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
