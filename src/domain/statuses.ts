import { z } from 'zod';

/** The full status set of every entity of DESIGN.md section 3, and the enums they share. */

export const ProviderKind = z.enum(['codex', 'claude', 'acp']);
export type ProviderKind = z.infer<typeof ProviderKind>;

export const RuntimeMode = z.enum(['read_only', 'workspace_write', 'full_access']);
export type RuntimeMode = z.infer<typeof RuntimeMode>;

export const InteractionMode = z.enum(['default', 'plan']);
export type InteractionMode = z.infer<typeof InteractionMode>;

export const ThreadStatus = z.enum(['active', 'archived', 'deleted']);
export type ThreadStatus = z.infer<typeof ThreadStatus>;

export const RunStatus = z.enum([
  'queued',
  'starting',
  'running',
  'waiting',
  'completed',
  'interrupted',
  'failed',
  'cancelled',
  'rolled_back',
]);
export type RunStatus = z.infer<typeof RunStatus>;
export const runTerminalStatuses = ['completed', 'interrupted', 'failed', 'cancelled', 'rolled_back'] as const;

export const RunAttemptStatus = z.enum([
  'pending',
  'running',
  'completed',
  'interrupted',
  'failed',
  'cancelled',
  'superseded',
]);
export type RunAttemptStatus = z.infer<typeof RunAttemptStatus>;

export const AttemptReason = z.enum(['initial', 'steering_restart', 'retry', 'provider_recovery', 'provider_handoff']);
export type AttemptReason = z.infer<typeof AttemptReason>;

export const NodeKind = z.enum([
  'root_turn',
  'assistant_message',
  'reasoning',
  'plan',
  'todo_list',
  'tool_call',
  'approval_request',
  'user_input_request',
  'subagent',
  'hook',
  'system',
]);
export type NodeKind = z.infer<typeof NodeKind>;

export const NodeStatus = z.enum([
  'pending',
  'running',
  'waiting',
  'completed',
  'interrupted',
  'failed',
  'cancelled',
  'rolled_back',
]);
export type NodeStatus = z.infer<typeof NodeStatus>;

export const ProviderSessionStatus = z.enum(['starting', 'ready', 'running', 'waiting', 'stopped', 'error']);
export type ProviderSessionStatus = z.infer<typeof ProviderSessionStatus>;

export const ProviderThreadStatus = z.enum(['not_loaded', 'idle', 'active', 'archived', 'closed', 'error']);
export type ProviderThreadStatus = z.infer<typeof ProviderThreadStatus>;

export const ProviderTurnStatus = z.enum(['pending', 'running', 'completed', 'interrupted', 'failed', 'cancelled']);
export type ProviderTurnStatus = z.infer<typeof ProviderTurnStatus>;

export const RuntimeRequestKind = z.enum([
  'command',
  'file_read',
  'file_change',
  'dynamic_tool_call',
  'user_input',
  'auth_refresh',
]);
export type RuntimeRequestKind = z.infer<typeof RuntimeRequestKind>;

// `answering`: the user answered and the provider has not taken the answer yet.
export const RuntimeRequestStatus = z.enum(['pending', 'answering', 'resolved', 'expired', 'cancelled']);
export type RuntimeRequestStatus = z.infer<typeof RuntimeRequestStatus>;

export const ContextTransferKind = z.enum([
  'fork',
  'provider_handoff',
  'merge_back',
  'subagent_spawn',
  'subagent_result',
]);
export type ContextTransferKind = z.infer<typeof ContextTransferKind>;
export const ContextTransferStatus = z.enum(['pending', 'materialized', 'consumed', 'resolved_native', 'superseded']);
export type ContextTransferStatus = z.infer<typeof ContextTransferStatus>;

export const ContextHandoffStrategy = z.enum(['full', 'delta']);
export type ContextHandoffStrategy = z.infer<typeof ContextHandoffStrategy>;
export const ContextHandoffStatus = z.enum(['delivered', 'superseded']);
export type ContextHandoffStatus = z.infer<typeof ContextHandoffStatus>;

export const CheckpointScopeKind = z.enum(['root_run', 'subagent', 'tool', 'provider_thread', 'manual']);
export type CheckpointScopeKind = z.infer<typeof CheckpointScopeKind>;
export const CheckpointStatus = z.enum(['ready', 'missing', 'error', 'stale']);
export type CheckpointStatus = z.infer<typeof CheckpointStatus>;

export const Correlation = z.enum(['native_exact', 'native_scoped', 'ordinal', 'fingerprint', 'synthetic']);
export type Correlation = z.infer<typeof Correlation>;

export const DispatchMode = z.enum([
  'start_immediately',
  'steer_active',
  'restart_active',
  'queue_after_active',
  'auto',
]);
export type DispatchMode = z.infer<typeof DispatchMode>;

export const ApprovalDecision = z.enum(['accept', 'acceptForSession', 'decline', 'cancel']);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

export const PlanArtifactKind = z.enum(['proposed_plan', 'todo_list', 'questions']);
export type PlanArtifactKind = z.infer<typeof PlanArtifactKind>;
