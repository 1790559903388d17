import { z } from 'zod';

/**
 * The eleven capability groups every adapter declares (DESIGN.md section 4). Orchestration
 * decides by these flags through one policy module, never by provider name.
 */

const Quality = z.enum(['strong', 'weak', 'none']);

export const SessionCapabilities = z.object({
  supportsMultipleProviderThreadsPerSession: z.boolean(),
  supportsModelSwitchInSession: z.boolean(),
  supportsProviderSwitchingViaHandoff: z.boolean(),
  supportsRuntimeModeSwitchInSession: z.boolean(),
  pendingRequestsSurviveRestart: z.boolean(),
});

export const ThreadCapabilities = z.object({
  canCreateEmptyThread: z.boolean(),
  canReadThreadSnapshot: z.boolean(),
  canRollbackThread: z.boolean(),
  canForkThread: z.boolean(),
  canForkFromTurn: z.boolean(),
  canForkFromSubagentThread: z.boolean(),
  exposesNativeThreadId: z.boolean(),
});

export const TurnCapabilities = z.object({
  exposesNativeTurnId: z.boolean(),
  emitsTurnStarted: z.boolean(),
  emitsTurnCompleted: z.boolean(),
  supportsInterrupt: z.boolean(),
  supportsActiveSteering: z.boolean(),
  supportsSteeringByInterruptRestart: z.boolean(),
  supportsQueuedMessages: z.boolean(),
  terminalStatusQuality: Quality,
});

export const StreamingCapabilities = z.object({
  streamsAssistantText: z.boolean(),
  streamsReasoning: z.boolean(),
  streamsToolOutput: z.boolean(),
  streamsPlanText: z.boolean(),
  emitsMessageCompleted: z.boolean(),
});

export const ToolCapabilities = z.object({
  exposesToolItemIds: z.boolean(),
  emitsToolStarted: z.boolean(),
  emitsToolCompleted: z.boolean(),
  emitsToolOutput: z.boolean(),
  supportsMcpTools: z.boolean(),
  supportsDynamicToolCallbacks: z.boolean(),
});

export const ApprovalCapabilities = z.object({
  supportsCommandApproval: z.boolean(),
  supportsFileReadApproval: z.boolean(),
  supportsFileChangeApproval: z.boolean(),
  supportsApplyPatchApproval: z.boolean(),
  approvalsHaveNativeRequestIds: z.boolean(),
  approvalCallbacksAreLiveOnly: z.boolean(),
  approvalsCanOriginateFromSubagents: z.boolean(),
  /** A declined command leaves the turn going (the model hears the refusal); false: the agent ends the turn. */
  declineContinuesTurn: z.boolean(),
});

export const PlanningCapabilities = z.object({
  emitsPlanUpdated: z.boolean(),
  emitsTodoList: z.boolean(),
  emitsProposedPlan: z.boolean(),
  supportsStructuredQuestions: z.boolean(),
  planDeltasHaveItemIds: z.boolean(),
});

export const SubagentCapabilities = z.object({
  supportsSubagents: z.boolean(),
  exposesSubagentThreadIds: z.boolean(),
  emitsSubagentLifecycle: z.boolean(),
  canWaitForSubagents: z.boolean(),
  canCloseSubagents: z.boolean(),
  canForkSubagentThread: z.boolean(),
  /** `rollback.node` to a child's earlier turn can drop its later turns from the child's own provider thread. */
  canRollbackSubagentThread: z.boolean(),
});

export const ContextCapabilities = z.object({
  acceptsSystemContext: z.boolean(),
  acceptsDeveloperContext: z.boolean(),
  acceptsSyntheticUserContext: z.boolean(),
  canGenerateSummaries: z.boolean(),
  canConsumeHandoffSummaries: z.boolean(),
  supportsDeltaHandoff: z.boolean(),
  supportsFullThreadHandoff: z.boolean(),
  maxRecommendedHandoffChars: z.number().int().positive(),
});

export const CheckpointingCapabilities = z.object({
  appCanCheckpointFilesystem: z.boolean(),
  supportsNestedCheckpointScopes: z.boolean(),
  providerCanRollbackConversation: z.boolean(),
  providerRollbackReturnsSnapshot: z.boolean(),
  providerCanReadConversationSnapshot: z.boolean(),
});

export const IdentityCapabilities = z.object({
  nativeThreadIds: Quality,
  nativeTurnIds: Quality,
  nativeItemIds: Quality,
  nativeRequestIds: Quality,
});

export const ProviderCapabilities = z.object({
  version: z.string().min(1),
  sessions: SessionCapabilities,
  threads: ThreadCapabilities,
  turns: TurnCapabilities,
  streaming: StreamingCapabilities,
  tools: ToolCapabilities,
  approvals: ApprovalCapabilities,
  planning: PlanningCapabilities,
  subagents: SubagentCapabilities,
  context: ContextCapabilities,
  checkpointing: CheckpointingCapabilities,
  identity: IdentityCapabilities,
});
export type ProviderCapabilities = z.infer<typeof ProviderCapabilities>;

/** The eleven group names, in DESIGN.md order. */
export const capabilityGroups = [
  'sessions',
  'threads',
  'turns',
  'streaming',
  'tools',
  'approvals',
  'planning',
  'subagents',
  'context',
  'checkpointing',
  'identity',
] as const satisfies readonly (keyof ProviderCapabilities)[];
