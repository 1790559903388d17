import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import { codexScenarios } from './codex-scenarios.js';

/**
 * Codex's capability declaration says what Baton's adapter does. Every flag it sets true
 * names the test that shows it: a shared scenario (run live against the real binary and
 * replayed from its recording) or a live test by file and title. A true flag with no
 * evidence, or evidence for a flag that is not true, fails here.
 */
type Evidence = { scenario: string } | { file: string; title: string };
const scenario = (name: string): Evidence => ({ scenario: name });
const live = (file: string, title: string): Evidence => ({ file: `test/${file}`, title });

const settings = 'providers/codex-settings-live.test.ts';
const recovery = 'providers/codex-recovery-live.test.ts';

export const codexEvidence: Record<string, Evidence> = {
  'sessions.supportsModelSwitchInSession': live(
    settings,
    'a model change reaches the next model request of a resumed thread',
  ),
  'sessions.supportsRuntimeModeSwitchInSession': live(
    settings,
    'thread.settings.update runtimeMode applies to the next run of the same provider thread, both ways',
  ),
  'threads.canCreateEmptyThread': scenario('simple'),
  'threads.canReadThreadSnapshot': live(recovery, 'what Codex kept matches Baton'),
  'threads.canRollbackThread': scenario('thread_rollback'),
  'threads.canForkThread': scenario('fork_native'),
  'threads.canForkFromTurn': scenario('fork_native'),
  'threads.canForkFromSubagentThread': live(
    'providers/codex-subagents-live.test.ts',
    "a fork from the subagent's node forks the child's own thread",
  ),
  'threads.exposesNativeThreadId': scenario('provider_crash_recovery'),
  'turns.exposesNativeTurnId': scenario('simple'),
  'turns.emitsTurnStarted': scenario('turn_interrupt'),
  'turns.emitsTurnCompleted': scenario('simple'),
  'turns.supportsInterrupt': scenario('turn_interrupt'),
  'turns.supportsActiveSteering': scenario('message_steering'),
  'turns.supportsSteeringByInterruptRestart': scenario('steering_restart_fallback'),
  'streaming.streamsAssistantText': scenario('reasoning'),
  'streaming.streamsReasoning': scenario('reasoning'),
  'streaming.streamsToolOutput': scenario('command_output'),
  'streaming.streamsPlanText': scenario('proposed_plan'),
  'streaming.emitsMessageCompleted': scenario('simple'),
  'tools.exposesToolItemIds': scenario('command_output'),
  'tools.emitsToolStarted': scenario('command_output'),
  'tools.emitsToolCompleted': scenario('command_output'),
  'tools.emitsToolOutput': scenario('command_output'),
  'tools.supportsMcpTools': scenario('mcp_tool_call'),
  'approvals.supportsCommandApproval': scenario('approval_request'),
  'approvals.declineContinuesTurn': scenario('approval_decline'),
  'approvals.supportsFileChangeApproval': scenario('file_change_approval'),
  'approvals.supportsApplyPatchApproval': scenario('file_change_approval'),
  'approvals.approvalsHaveNativeRequestIds': scenario('approval_request'),
  'approvals.approvalCallbacksAreLiveOnly': scenario('restart_recovery'),
  'approvals.approvalsCanOriginateFromSubagents': scenario('subagent_checkpoint'),
  'subagents.supportsSubagents': scenario('subagent'),
  'subagents.emitsSubagentLifecycle': scenario('subagent'),
  'subagents.exposesSubagentThreadIds': live(
    'providers/codex-replay.test.ts',
    "is bound to its native thread: the spawn's child thread, whose turn is never one of the run's",
  ),
  'planning.emitsPlanUpdated': scenario('plan_todo'),
  'planning.emitsTodoList': scenario('plan_todo'),
  'planning.emitsProposedPlan': scenario('proposed_plan'),
  'planning.supportsStructuredQuestions': scenario('user_input_request'),
  'planning.planDeltasHaveItemIds': scenario('proposed_plan'),
  'context.acceptsSyntheticUserContext': live(recovery, 'replaces the Codex thread, seeded from Baton'),
  'context.canConsumeHandoffSummaries': live(recovery, 'replaces the Codex thread, seeded from Baton'),
  'context.supportsFullThreadHandoff': live(recovery, 'the next run is reseeded with only the kept runs'),
  'checkpointing.appCanCheckpointFilesystem': scenario('simple'),
  'checkpointing.supportsNestedCheckpointScopes': scenario('subagent_checkpoint'),
  'checkpointing.providerCanRollbackConversation': scenario('thread_rollback'),
  'checkpointing.providerCanReadConversationSnapshot': live(recovery, 'what Codex kept matches Baton'),
};

const trueFlags = Object.entries(codexCapabilities).flatMap(([group, flags]) =>
  typeof flags === 'object'
    ? Object.entries(flags as Record<string, unknown>)
        .filter(([, v]) => v === true)
        .map(([flag]) => `${group}.${flag}`)
    : [],
);

describe("Codex's capability declaration", () => {
  it('every flag it sets true has evidence, and there is evidence only for flags set true', () => {
    expect(Object.keys(codexEvidence).sort()).toEqual(trueFlags.sort());
  });

  it.each(Object.entries(codexEvidence))('%s is backed by a test that exists', (_flag, evidence) => {
    if ('scenario' in evidence) expect(codexScenarios.map((s) => s.name)).toContain(evidence.scenario);
    else expect(readFileSync(new URL(`../../${evidence.file}`, import.meta.url), 'utf8')).toContain(evidence.title);
  });

  it('does not claim what the adapter does not carry out: waits, closes and forks of subagents by Baton, dynamic tool callbacks, developer context', () => {
    const c = codexCapabilities;
    // Subagents are nodes bound to their native threads; Baton itself neither waits on, closes nor forks them
    // (a fork from a subagent's node forks its child's thread: `threads.canForkFromSubagentThread`).
    expect(
      Object.entries(c.subagents)
        .filter(([, v]) => v === true)
        .map(([k]) => k)
        .sort(),
    ).toEqual(['emitsSubagentLifecycle', 'exposesSubagentThreadIds', 'supportsSubagents']);
    expect(c.tools.supportsDynamicToolCallbacks).toBe(false);
    expect([
      c.context.acceptsDeveloperContext,
      c.context.supportsDeltaHandoff,
      c.checkpointing.providerRollbackReturnsSnapshot,
    ]).toEqual([false, false, false]);
  });
});
