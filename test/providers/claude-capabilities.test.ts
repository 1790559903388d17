import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claudeCapabilities } from '../../src/providers/claude/claude-capabilities.js';
import { applicableScenarios } from '../support/scenario-kit/scenarios.js';
import { claudeScenarioProvider } from './claude-scenarios.js';

/**
 * Claude's capability declaration says what Baton's Claude adapter does. Every flag it sets
 * true names the test that shows it: a shared scenario (run live on the real agent by
 * test/providers/claude-scenarios-live.test.ts) or a test by file and title. A true flag
 * with no evidence, or evidence for a flag that is not true, fails here.
 */
type Evidence = { scenario: string } | { file: string; title: string };
const scenario = (name: string): Evidence => ({ scenario: name });
const test = (file: string, title: string): Evidence => ({ file: `test/${file}`, title });

export const claudeEvidence: Record<string, Evidence> = {
  'sessions.supportsModelSwitchInSession': test(
    'providers/claude-settings-live.test.ts',
    'a runtimeMode and model update applies to the next run of the same agent session, both ways',
  ),
  'sessions.supportsRuntimeModeSwitchInSession': test(
    'providers/claude-settings-live.test.ts',
    'a runtimeMode and model update applies to the next run of the same agent session, both ways',
  ),
  'threads.canCreateEmptyThread': scenario('simple'),
  'threads.exposesNativeThreadId': test(
    'providers/claude-provider-live.test.ts',
    'binds the session id to the provider thread and resumes it after a Baton restart, with the history',
  ),
  'turns.exposesNativeTurnId': scenario('simple'),
  'turns.emitsTurnStarted': scenario('turn_interrupt'),
  'turns.emitsTurnCompleted': scenario('simple'),
  'turns.supportsInterrupt': scenario('turn_interrupt'),
  'streaming.streamsAssistantText': test(
    'server/api.test.ts',
    'a Claude thread answers through the real Claude agent and the offline Messages-API model, streamed',
  ),
  'streaming.emitsMessageCompleted': scenario('simple'),
  'streaming.streamsReasoning': scenario('reasoning'),
  'tools.exposesToolItemIds': scenario('tool_call'),
  'tools.emitsToolStarted': scenario('tool_call'),
  'tools.emitsToolCompleted': scenario('tool_call'),
  'tools.emitsToolOutput': scenario('tool_call'),
  'tools.supportsMcpTools': scenario('mcp_tool_call'),
  'planning.supportsStructuredQuestions': scenario('user_input_request'),
  'planning.emitsPlanUpdated': scenario('plan_todo'),
  'planning.emitsTodoList': scenario('plan_todo'),
  'planning.emitsProposedPlan': scenario('proposed_plan'),
  'approvals.supportsCommandApproval': scenario('approval_request'),
  'approvals.declineContinuesTurn': scenario('approval_decline'),
  'approvals.approvalsHaveNativeRequestIds': scenario('approval_request'),
  'checkpointing.appCanCheckpointFilesystem': scenario('simple'),
  'threads.canRollbackThread': scenario('thread_rollback'),
  'checkpointing.providerCanRollbackConversation': test(
    'providers/claude-lifecycle-live.test.ts',
    'a rollback reconciles the conversation: the next request carries the kept turns only, after a restart and a second rollback too',
  ),
  'threads.canForkThread': scenario('fork_native'),
  'threads.canForkFromTurn': test(
    'providers/claude-lifecycle-live.test.ts',
    "a fork at a turn carries the source's turns up to it; the source session goes on untouched",
  ),
  'turns.supportsSteeringByInterruptRestart': scenario('steering_restart_fallback'),
  'approvals.approvalCallbacksAreLiveOnly': scenario('restart_recovery'),
  'subagents.supportsSubagents': scenario('subagent'),
  'subagents.emitsSubagentLifecycle': scenario('subagent'),
  'subagents.canCloseSubagents': test(
    'providers/claude-background-live.test.ts',
    "a Stop ends a helper whose command runs: its node and command end interrupted, the command's process is gone, and no turn of the agent's own follows",
  ),
  'checkpointing.supportsNestedCheckpointScopes': scenario('subagent_checkpoint'),
  'approvals.approvalsCanOriginateFromSubagents': scenario('subagent_checkpoint'),
  'context.acceptsSyntheticUserContext': test(
    'providers/claude-lifecycle-live.test.ts',
    'a resume the agent refuses is a typed thread failure: the run goes on in a replacement seeded from Baton, which the next run resumes',
  ),
  'context.canConsumeHandoffSummaries': test(
    'providers/claude-lifecycle-live.test.ts',
    'a resume the agent refuses is a typed thread failure: the run goes on in a replacement seeded from Baton, which the next run resumes',
  ),
};

const trueFlags = Object.entries(claudeCapabilities).flatMap(([group, flags]) =>
  typeof flags === 'object'
    ? Object.entries(flags as Record<string, unknown>)
        .filter(([, v]) => v === true)
        .map(([flag]) => `${group}.${flag}`)
    : [],
);

describe("Claude's capability declaration", () => {
  it('every flag it sets true has evidence, and there is evidence only for flags set true', () => {
    expect(Object.keys(claudeEvidence).sort()).toEqual(trueFlags.sort());
  });

  it.each(Object.entries(claudeEvidence))('%s is backed by a test that exists', (_flag, evidence) => {
    if ('scenario' in evidence)
      expect(applicableScenarios(claudeScenarioProvider).map((s) => s.name)).toContain(evidence.scenario);
    else expect(readFileSync(new URL(`../../${evidence.file}`, import.meta.url), 'utf8')).toContain(evidence.title);
  });

  it('runs exactly these shared scenarios live; the rest are not applicable by a declared-false capability or a model step it has no form for', () => {
    expect(applicableScenarios(claudeScenarioProvider).map((s) => s.name)).toEqual([
      'simple',
      'multi_turn',
      'turn_interrupt',
      'steering_restart_fallback',
      'queued_turn',
      'provider_error',
      'approval_request',
      'approval_decline',
      'approval_cancel',
      'user_input_request',
      'plan_todo',
      'proposed_plan',
      'reasoning',
      'tool_call',
      'web_search',
      'mcp_tool_call',
      'fork_native',
      'thread_rollback',
      'thread_rollback_reseed',
      'provider_crash_recovery',
      'restart_recovery',
      'fork_portable',
      'subagent',
      'subagent_checkpoint',
    ]);
  });

  it('does not claim what the adapter does not carry out yet: steering, rollback, forks, plans, subagents, tool nodes, context', () => {
    const c = claudeCapabilities;
    // A message sent mid-turn lands in the running turn only while a tool runs: steering is by interrupt and restart.
    expect([c.turns.supportsActiveSteering, c.turns.supportsSteeringByInterruptRestart]).toEqual([false, true]);
    expect([c.threads.canReadThreadSnapshot, c.threads.canForkFromSubagentThread]).toEqual([false, false]);
    // Of the tool flags, all but dynamic tool callbacks (Baton offers the agent none of its own).
    expect(
      Object.entries(c.tools)
        .filter(([, v]) => v === true)
        .map(([k]) => k),
    ).toEqual(['exposesToolItemIds', 'emitsToolStarted', 'emitsToolCompleted', 'emitsToolOutput', 'supportsMcpTools']);
    // The output arrives whole with the tool's result: no streamed output.
    expect(c.streaming.streamsToolOutput).toBe(false);
    // Subagents are nodes with their lifecycle, not provider threads of their own (nor waited on or forked by
    // Baton); a Stop closes them.
    expect(
      Object.entries(c.subagents)
        .filter(([, v]) => v === true)
        .map(([k]) => k)
        .sort(),
    ).toEqual(['canCloseSubagents', 'emitsSubagentLifecycle', 'supportsSubagents']);
    // Of the planning flags, all but the plan's deltas (Claude's plan arrives whole, in ExitPlanMode).
    expect(
      Object.entries(c.planning)
        .filter(([, v]) => v === true)
        .map(([k]) => k)
        .sort(),
    ).toEqual(['emitsPlanUpdated', 'emitsProposedPlan', 'emitsTodoList', 'supportsStructuredQuestions']);
    // Of the session flags, only the settings switches (each turn applies its thread's settings).
    expect(
      Object.entries(c.sessions)
        .filter(([, v]) => v === true)
        .map(([k]) => k)
        .sort(),
    ).toEqual(['supportsModelSwitchInSession', 'supportsRuntimeModeSwitchInSession']);
    // Of the context flags, only the reseed sent as user text (no handoffs between providers).
    expect(
      Object.entries(c.context)
        .filter(([, v]) => v === true)
        .map(([k]) => k)
        .sort(),
    ).toEqual(['acceptsSyntheticUserContext', 'canConsumeHandoffSummaries']);
  });
});
