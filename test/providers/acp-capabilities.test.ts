import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { acpAgentFeatures, acpBaseCapabilities, acpCapabilities } from '../../src/providers/acp/acp-capabilities.js';
import { BatonError } from '../../src/domain/errors.js';

/**
 * The ACP declaration is computed from each agent's real `initialize` answer (recorded from
 * the pinned agents into test/fixtures/acp/). Every true flag names the test that shows it.
 */
const fixture = (agent: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/acp/${agent}.initialize.json`, import.meta.url), 'utf8'));

/** Each flag declared true, and the test that backs it. */
export const acpEvidence: Record<string, string> = {
  'threads.exposesNativeThreadId':
    'acp-provider-live: binds its session to the provider thread; acp-lifecycle-live: resumes the same session',
  'turns.emitsTurnStarted': 'acp-provider-live: streams a reply (run goes running -> completed)',
  'turns.emitsTurnCompleted': 'acp-provider-live: streams a reply',
  'turns.supportsInterrupt': 'acp-lifecycle-live: an interrupt ends the run interrupted (both agents)',
  'turns.supportsSteeringByInterruptRestart':
    'acp-scenarios-live steering_restart_fallback (both agents): session/cancel, then a replacement attempt under the same run',
  'approvals.supportsCommandApproval':
    'acp-scenarios-live approval_request, approval_cancel, restart_recovery (both agents); acp-api: allow writes a file, reject leaves none',
  'approvals.declineContinuesTurn':
    "acp-scenarios-live approval_decline (claude-agent-acp; codex-acp's decline ends the turn: approval_decline_ends_turn)",
  'planning.emitsPlanUpdated': "acp-scenarios-live plan_todo (both agents): the agent's plan is the todo list",
  'planning.emitsTodoList': 'acp-scenarios-live plan_todo (both agents)',
  'planning.emitsProposedPlan':
    'acp-scenarios-live and acp-scenarios-replay proposed_plan (claude-agent-acp): its ExitPlanMode ask is the plan, answered keep planning; acp-plan-mode-live: the next message in default mode implements it',
  'streaming.streamsAssistantText': 'acp-provider-live: streams a reply (message deltas)',
  'streaming.streamsReasoning': 'acp-provider-live: streams a reply and reasoning from codex-acp (node.output)',
  'streaming.emitsMessageCompleted': 'acp-provider-live: the whole reply is the message text',
  'approvals.supportsFileChangeApproval': 'acp-requests-live: claude-agent-acp accept/decline on a file write',
  'approvals.approvalCallbacksAreLiveOnly': 'acp-lifecycle-live: a killed agent fails its run (its asks die with it)',
  'checkpointing.appCanCheckpointFilesystem':
    'acp-scenarios-live simple and thread_rollback_reseed (both agents): a root checkpoint per run, a rollback restores the files',
  'context.acceptsSyntheticUserContext':
    'acp-scenarios-live thread_rollback_reseed (both agents): the replacement session is seeded with the kept run',
  'context.canConsumeHandoffSummaries': 'the reseed is user text on the prompt (acp-provider.ts, as Claude)',
  'sessions.supportsModelSwitchInSession':
    'acp-settings-live: claude-agent-acp, a model switch reaches the next model request (codex-acp declares it false)',
  'threads.canForkThread':
    'acp-scenarios-live and acp-scenarios-replay fork_native (claude-agent-acp): session/fork in the fork thread, resolved native_fork',
  'threads.canForkFromTurn':
    "acp-fork-live: a fork from an earlier run carries the source's turns up to it and none after (claude-agent-acp)",
  'tools.exposesToolItemIds':
    'acp-scenarios-live and acp-scenarios-replay tool_call (claude-agent-acp): each command its own node, keyed by toolCallId',
  'tools.emitsToolStarted': 'acp-scenarios-live and acp-scenarios-replay tool_call (claude-agent-acp)',
  'tools.emitsToolCompleted': 'acp-scenarios-live and acp-scenarios-replay tool_call (claude-agent-acp)',
  'tools.emitsToolOutput':
    'acp-scenarios-live and acp-scenarios-replay tool_call (claude-agent-acp): the command output on its item; acp-tool-calls.test.ts',
  'tools.supportsMcpTools':
    'acp-scenarios-live and acp-scenarios-replay mcp_tool_call (both agents): the stdio server on session/new, its call an mcp tool node',
  'sessions.supportsRuntimeModeSwitchInSession':
    'acp-settings-live: claude-agent-acp read_only asks, workspace_write does not; codex-acp runtime modes reach its approval presets',
};

const trueFlags = (caps: Record<string, unknown>): string[] =>
  Object.entries(caps).flatMap(([group, flags]) =>
    flags && typeof flags === 'object'
      ? Object.entries(flags)
          .filter(([, v]) => v === true)
          .map(([k]) => `${group}.${k}`)
      : [],
  );

describe('ACP capabilities from initialize', () => {
  it('reads what claude-agent-acp advertises', () => {
    expect(acpAgentFeatures(fixture('claude-agent-acp'))).toEqual({
      agent: '@zed-industries/claude-agent-acp',
      version: '0.23.1',
      resume: 'resume',
      fork: true,
      list: true,
      prompt: { image: true, audio: false, embeddedContext: true },
      mcp: { stdio: true, http: true, sse: true },
    });
  });

  it('reads what codex-acp advertises (no session/fork)', () => {
    expect(acpAgentFeatures(fixture('codex-acp'))).toEqual({
      agent: 'codex-acp',
      version: '0.16.0',
      resume: 'resume',
      fork: false,
      list: true,
      prompt: { image: true, audio: false, embeddedContext: true },
      mcp: { stdio: true, http: true, sse: false },
    });
  });

  it('an agent that offers only session/load is taken up by load; one that offers neither has no native thread', () => {
    const loadOnly = { protocolVersion: 1, agentCapabilities: { loadSession: true } };
    expect(acpAgentFeatures(loadOnly).resume).toBe('load');
    const none = acpCapabilities(acpAgentFeatures({ protocolVersion: 1 }));
    expect(none.threads.exposesNativeThreadId).toBe(false);
    expect(none.identity.nativeThreadIds).toBe('weak');
  });

  it('declares per agent, versioned by it, and every true flag has its evidence', () => {
    for (const agent of ['claude-agent-acp', 'codex-acp']) {
      const caps = acpCapabilities(acpAgentFeatures(fixture(agent)));
      expect(caps.version).toMatch(new RegExp(`^acp/.*${agent}@`));
      expect(caps.threads.exposesNativeThreadId).toBe(true);
      // session/fork across threads: claude-agent-acp only (codex-acp has no session/fork).
      expect([caps.threads.canForkThread, caps.threads.canForkFromTurn]).toEqual(
        agent === 'claude-agent-acp' ? [true, true] : [false, false],
      );
      // session/set_model: claude-agent-acp only; session/set_mode: both (acp-turn-settings.ts).
      expect(caps.sessions.supportsModelSwitchInSession).toBe(agent === 'claude-agent-acp');
      expect(caps.sessions.supportsRuntimeModeSwitchInSession).toBe(true);
      // Both agents ask; codex-acp's only reject option ends the turn: no "decline and carry on" (acp-capabilities.ts).
      expect(caps.approvals.supportsCommandApproval).toBe(true);
      expect(caps.approvals.declineContinuesTurn).toBe(agent === 'claude-agent-acp');
      // Baton checkpoints the files around every run; the agent's conversation has no rollback (divergent + reseed).
      expect([
        caps.checkpointing.appCanCheckpointFilesystem,
        caps.checkpointing.providerCanRollbackConversation,
      ]).toEqual([true, false]);
      // A proposed plan where plan mode's exit was measured (claude-agent-acp); questions from neither (acp-plan-mode-live).
      expect(caps.planning.emitsProposedPlan).toBe(agent === 'claude-agent-acp');
      expect(caps.planning.supportsStructuredQuestions).toBe(false);
      // MCP calls known on their tool nodes for the built-in agents only (acp-mcp.ts).
      expect(caps.tools.supportsMcpTools).toBe(true);
      // Tool nodes where every call is reported (codex-acp leaves out the commands it runs unasked).
      expect([
        caps.tools.exposesToolItemIds,
        caps.tools.emitsToolStarted,
        caps.tools.emitsToolCompleted,
        caps.tools.emitsToolOutput,
      ]).toEqual(Array(4).fill(agent === 'claude-agent-acp'));
      expect(caps.streaming.streamsToolOutput).toBe(false);
      for (const flag of trueFlags(caps)) expect(acpEvidence[flag], flag).toBeTruthy();
    }
    expect(acpBaseCapabilities.tools.supportsMcpTools).toBe(false);
    for (const flag of trueFlags(acpBaseCapabilities)) expect(acpEvidence[flag], flag).toBeTruthy();
  });

  it('an agent that advertises session/fork but keeps its own session store declares no fork', () => {
    const other = { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { fork: {} } } };
    expect(acpAgentFeatures(other).fork).toBe(true);
    expect(acpCapabilities(acpAgentFeatures(other)).threads.canForkThread).toBe(false);
    expect(acpBaseCapabilities.threads.canForkThread).toBe(false);
  });

  it('a malformed initialize answer is a typed provider error', () => {
    expect(() => acpAgentFeatures({ agentCapabilities: 'all' })).toThrow(BatonError);
  });
});
