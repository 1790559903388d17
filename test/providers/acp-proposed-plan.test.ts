import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { NodeId, ProviderSessionId, RunAttemptId, RunId, ThreadId } from '../../src/domain/ids.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { AcpNormalizer } from '../../src/providers/acp/acp-normalizer.js';
import { keepPlanningOption, planTextOf, proposedPlanOf } from '../../src/providers/acp/acp-proposed-plan.js';
import { readTranscript } from '../../src/providers/transport/transcript.js';
import { acpTranscriptDir } from './acp-replay-channels.js';

/**
 * Plan mode's end on ACP, from the frames claude-agent-acp 0.23.1 sent in the recorded
 * proposed_plan scenario: its ExitPlanMode ask (a `switch_mode` tool call carrying the plan)
 * is a proposed plan in a plan-mode turn, answered with its "keep planning" option; its tool
 * call is no tool node there. Anything else stays an approval and a tool node.
 */
const recorded = readTranscript(`${acpTranscriptDir('claude-agent-acp')}proposed_plan.ndjson`);
const inbound = recorded.entries.flatMap((e) =>
  e.kind === 'emit_inbound' ? [e.frame as { method?: string; params?: Record<string, unknown> }] : [],
);
const ask = inbound.find((f) => f.method === 'session/request_permission')!.params as acp.RequestPermissionRequest;
const updates = inbound.filter((f) => f.method === 'session/update').map((f) => f.params!.update);
/** The updates the agent sent before its ask (the plan file's write, the ExitPlanMode tool call). */
const beforeAsk = inbound
  .slice(
    0,
    inbound.findIndex((f) => f.method === 'session/request_permission'),
  )
  .filter((f) => f.method === 'session/update')
  .map((f) => f.params!.update);
const PLAN = '# Add a greeting\n\n1. Write hello.txt\n2. Check it\n';

const threadId = ThreadId.parse('thr_plan');
const turn = (planning: boolean) => ({
  runId: RunId.parse('run_1'),
  attemptId: RunAttemptId.parse('att_1'),
  rootNodeId: NodeId.parse('node_root'),
  providerThreadId: null,
  planning,
});
const normalizer = () =>
  new AcpNormalizer({ threadId, sessionId: ProviderSessionId.parse('psess_plan'), ids: new SequentialIds() });

describe('the ACP proposed plan', () => {
  it("a plan-mode turn's switch_mode ask is the plan, answered with the option whose mode is plan", () => {
    expect(ask.toolCall.kind).toBe('switch_mode');
    expect(proposedPlanOf(ask, true)).toEqual({
      text: PLAN,
      answer: { outcome: { outcome: 'selected', optionId: 'plan' } },
    });
  });

  it('outside plan mode, or for another tool kind, or with no plan text or no reject option, it is an approval', () => {
    expect(proposedPlanOf(ask, false)).toBeNull();
    expect(proposedPlanOf({ ...ask, toolCall: { ...ask.toolCall, kind: 'edit' } }, true)).toBeNull();
    expect(proposedPlanOf({ ...ask, toolCall: { ...ask.toolCall, content: [] } }, true)).toBeNull();
    const allows = ask.options.filter((o) => o.kind.startsWith('allow'));
    expect(proposedPlanOf({ ...ask, options: allows }, true)).toBeNull();
  });

  it('keeps planning by the plan mode id first, else reject_once, else reject_always', () => {
    const option = (optionId: string, kind: acp.PermissionOptionKind): acp.PermissionOption => ({
      optionId,
      kind,
      name: optionId,
    });
    expect(keepPlanningOption([option('no', 'reject_once'), option('plan', 'reject_always')])?.optionId).toBe('plan');
    expect(keepPlanningOption([option('never', 'reject_always'), option('no', 'reject_once')])?.optionId).toBe('no');
    expect(keepPlanningOption([option('never', 'reject_always')])?.optionId).toBe('never');
    expect(keepPlanningOption([option('plan', 'allow_once')])).toBeNull();
  });

  it("the plan is the tool call's text content", () => {
    expect(planTextOf(ask.toolCall)).toBe(PLAN);
    const two = [
      { type: 'content', content: { type: 'text', text: 'one' } },
      { type: 'content', content: { type: 'text', text: ' ' } },
      { type: 'diff', path: '/x', oldText: null, newText: 'y' },
      { type: 'content', content: { type: 'text', text: 'two' } },
    ] as acp.ToolCallContent[];
    expect(planTextOf({ content: two })).toBe('one\ntwo');
    expect(planTextOf({ content: null })).toBeNull();
  });

  it("in a plan-mode turn the switch_mode tool call is no node, and the proposal is the turn's final plan", () => {
    const n = normalizer();
    n.begin(turn(true));
    const events = beforeAsk.flatMap((update) => n.normalize({ kind: 'update', update }));
    const titles = events.flatMap((e) => (e.type === 'node.started' ? [e.title] : []));
    expect(titles).toEqual(['Write']);
    expect(n.planProposed(PLAN)).toEqual([
      {
        type: 'plan.updated',
        threadId,
        runId: 'run_1',
        nodeId: 'node_root',
        planId: expect.any(String),
        kind: 'proposed_plan',
        text: PLAN,
        steps: [],
        final: true,
      },
    ]);
    // The agent's refusal of its own exit, and the reply after it: still no node for the tool call.
    const after = updates
      .slice(beforeAsk.length)
      .flatMap((update) => n.normalize({ kind: 'update', update }))
      .map((e) => e.type);
    expect(after).not.toContain('node.started');
    expect(after).not.toContain('node.detail');
  });

  it('outside plan mode the switch_mode tool call is a tool node, as any other', () => {
    const n = normalizer();
    n.begin(turn(false));
    const events = updates.flatMap((update) => n.normalize({ kind: 'update', update }));
    const started = events.flatMap((e) => (e.type === 'node.started' ? [e.title] : []));
    expect(started).toEqual(['Write', 'Ready to code?']);
    // With no turn running there is nothing to propose to.
    expect(normalizer().planProposed(PLAN)).toEqual([]);
  });
});
