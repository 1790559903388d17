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
  'approvals.supportsCommandApproval': scenario('approval_request'),
  'approvals.approvalsHaveNativeRequestIds': scenario('approval_request'),
  'checkpointing.appCanCheckpointFilesystem': scenario('simple'),
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

  it('runs exactly these shared scenarios live; the rest are not applicable by a declared-false capability', () => {
    expect(applicableScenarios(claudeScenarioProvider).map((s) => s.name)).toEqual([
      'simple',
      'multi_turn',
      'turn_interrupt',
      'queued_turn',
      'provider_error',
      'approval_request',
      'approval_decline',
      'approval_cancel',
      'provider_crash_recovery',
    ]);
  });

  it('does not claim what the adapter does not carry out yet: steering, rollback, forks, plans, subagents, tool nodes, context', () => {
    const c = claudeCapabilities;
    expect([c.turns.supportsActiveSteering, c.turns.supportsSteeringByInterruptRestart]).toEqual([false, false]);
    expect([
      c.threads.canRollbackThread,
      c.threads.canForkThread,
      c.checkpointing.providerCanRollbackConversation,
    ]).toEqual([false, false, false]);
    for (const group of [c.planning, c.subagents, c.tools, c.sessions])
      expect(Object.values(group).every((v) => v === false)).toBe(true);
    expect(Object.values(c.context).filter((v) => v === true)).toEqual([]);
  });
});
