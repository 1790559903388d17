import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProviderSessionId, ProviderThreadId, ThreadId } from '../../src/domain/ids.js';
import type { ProviderEvent } from '../../src/domain/provider-events.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { createClaudeNormalizer, type ClaudeTurnRef } from '../../src/providers/claude/claude-normalizer.js';

/**
 * The Claude normalizer on the `Agent` tool's subagents, recorded off the real agent
 * (test/fixtures/claude/sdk-subagents.json): a foreground subagent (its text not forwarded,
 * then forwarded) and a background one that outlives its parent's turn (more of which in
 * claude-own-turns.test.ts).
 */
const Frame = z.looseObject({ type: z.string() });
const Recorded = z.object({
  foreground: z.array(Frame),
  foregroundForwarded: z.array(Frame),
  background: z.array(Frame),
});
const recorded = Recorded.parse(
  JSON.parse(readFileSync(new URL('../fixtures/claude/sdk-subagents.json', import.meta.url), 'utf8')),
);
const threadId = ThreadId.parse('thr_sub');
const sessionId = ProviderSessionId.parse('psess_sub');
const providerThreadId = ProviderThreadId.parse('pthr_sub');

const Lifecycle = z.looseObject({ type: z.literal('command_lifecycle'), command_uuid: z.string() });
/** The uuid of the user message the recording sent (the agent echoes it). */
const sentUuid = (frames: unknown[]) => frames.flatMap((f) => Lifecycle.safeParse(f).data?.command_uuid ?? [])[0]!;
const Task = z.looseObject({ type: z.literal('system'), subtype: z.literal('task_started'), task_id: z.string() });
const agentIdOf = (frames: unknown[]) => frames.flatMap((f) => Task.safeParse(f).data?.task_id ?? [])[0]!;

function setup(frames: unknown[]) {
  const ids = new SequentialIds('s');
  const n = createClaudeNormalizer({ threadId, sessionId, ids });
  const ref = (uuid: string): ClaudeTurnRef => ({
    runId: ids.next('run'),
    attemptId: ids.next('attempt'),
    rootNodeId: ids.next('node'),
    uuid,
    providerThreadId,
  });
  const one = ref(sentUuid(frames));
  n.begin(one, null);
  return { n, one, ref };
}

/** Node, message and turn events as short lines, each with the node it is about. */
const brief = (events: ProviderEvent[], names: Map<string, string>) => {
  const name = (id: string) => names.get(id) ?? id;
  return events.flatMap((e) => {
    switch (e.type) {
      case 'node.started':
        names.set(e.nodeId, `${e.kind}:${e.title}`);
        return [`start ${name(e.nodeId)} under ${name(e.parentNodeId)}`];
      case 'node.delta':
        return [`${name(e.nodeId)} says ${JSON.stringify(e.delta)}`];
      case 'node.detail': {
        const output = e.detail['output'];
        if (typeof output === 'string') return [`${name(e.nodeId)} output ${JSON.stringify(output.slice(0, 40))}`];
        return e.text === null ? [] : [`${name(e.nodeId)} text ${JSON.stringify(e.text.slice(0, 40))}`];
      }
      case 'node.completed':
        return [`${name(e.nodeId)} ${e.status}`];
      case 'message.completed':
        return [`message under ${name(e.nodeId)}: ${e.text}`];
      case 'turn.completed':
        return [`turn ${name(e.nodeId)} ${e.status}`];
      case 'warning':
        return [`warning ${e.message}`];
      default:
        return [];
    }
  });
};

describe('the Claude normalizer, on recorded subagents', () => {
  it('a foreground subagent is a subagent node under the root: its tool uses under it, its final text its own, ended by its notification; only the root turn ends the run', () => {
    const frames = recorded.foreground;
    const { n, one } = setup(frames);
    const events = frames.flatMap((f) => n.normalize(f));
    const names = new Map([[one.rootNodeId as string, 'root']]);
    expect(brief(events, names)).toEqual([
      'start subagent:Write a file under root',
      'start tool_call:echo sub > sub.txt under subagent:Write a file',
      'tool_call:echo sub > sub.txt output "(Bash completed with no output)"',
      'tool_call:echo sub > sub.txt completed',
      'subagent:Write a file text "Subagent done: wrote sub.txt."',
      'subagent:Write a file completed',
      'message under root: Parent done.',
      'turn root completed',
    ]);
    const started = events.find((e) => e.type === 'node.started' && e.kind === 'subagent');
    expect(started).toMatchObject({ runId: one.runId, attemptId: one.attemptId, parentNodeId: one.rootNodeId });
    const details = events.flatMap((e) =>
      e.type === 'node.detail' && started?.type === 'node.started' && e.nodeId === started.nodeId ? [e.detail] : [],
    );
    expect(Object.assign({}, ...details)).toMatchObject({
      tool: 'Agent',
      toolUseId: 'toolu_agent1',
      subagentType: 'general-purpose',
      prompt: 'SUBTASK: write sub.txt',
      background: false,
      agentId: agentIdOf(frames),
      usage: { tool_uses: 1 },
    });
    // Nothing of the subagent's is the parent's: one turn end, one message, every event on the run.
    expect(events.filter((e) => e.type === 'turn.completed')).toHaveLength(1);
    expect(events.filter((e) => 'runId' in e && e.runId !== one.runId)).toEqual([]);
    expect(n.unknown).toBe(0);
  });

  it("a forwarded subagent's text is its node's output, never a message of the parent", () => {
    const frames = recorded.foregroundForwarded;
    const { n, one } = setup(frames);
    const events = frames.flatMap((f) => n.normalize(f));
    const lines = brief(events, new Map([[one.rootNodeId as string, 'root']]));
    expect(lines.filter((l) => l.includes('says') || l.startsWith('message'))).toEqual([
      'subagent:Write a file says "Subagent working."',
      'subagent:Write a file says "\\n\\nSubagent done: wrote sub.txt."',
      'message under root: Parent done.',
    ]);
    expect(lines.at(-1)).toBe('turn root completed');
  });

  it("a permission ask from inside a subagent belongs to its run and its tool's node, also once the parent's turn ended", async () => {
    const frames = recorded.background;
    const { n, one } = setup(frames);
    const agentId = agentIdOf(frames);
    const events: ProviderEvent[] = [];
    const at = (predicate: (f: z.infer<typeof Frame>) => boolean) => frames.findIndex(predicate);
    const bashUse = at((f) => f.type === 'assistant' && JSON.stringify(f).includes('toolu_sub_bash1'));
    const rootResult = at((f) => f.type === 'result');
    for (const f of frames.slice(0, Math.max(bashUse, rootResult) + 1)) events.push(...n.normalize(f));
    const bashNode = events.flatMap((e) =>
      e.type === 'node.started' && e.title === 'echo sub > sub.txt' ? [e] : [],
    )[0];
    expect(n.active).toBeNull();
    // A background subagent's ask outlives its run: the run neither waits on it nor ends it.
    expect(await n.askPlace('toolu_sub_bash1', agentId)).toEqual({
      runId: one.runId,
      parentNodeId: bashNode?.nodeId,
      outlivesRun: true,
    });
    // An ask from no subagent, with no turn running, belongs nowhere.
    expect(await n.askPlace('toolu_other', undefined)).toBeNull();
  });

  it("a background subagent outlives its parent's turn: the run ends by the root turn, the subagent by its notification; the agent's own turn after it asks for a run of its own, not Baton's waiting one", () => {
    const frames = recorded.background;
    const { n, one, ref } = setup(frames);
    const names = new Map([[one.rootNodeId as string, 'root']]);
    const rootResult = frames.findIndex((f) => f.type === 'result');
    const before = frames.slice(0, rootResult + 1).flatMap((f) => n.normalize(f));
    // The user sends the next message while the subagent still runs.
    const two = ref('00000000-0000-4000-8000-000000000002');
    n.begin(two, null);
    const after = frames.slice(rootResult + 1).flatMap((f) => n.normalize(f));

    const lines = brief(before, names);
    expect(lines[0]).toBe('start subagent:Write a file under root');
    // The subagent's frames interleave with the parent's (its Bash use came before the parent's result).
    expect(lines).toContain('message under root: Parent done.');
    expect(lines.at(-1)).toBe('turn root completed');
    expect(lines.filter((l) => l.startsWith('subagent:Write a file') && !l.includes('says'))).toEqual([]);
    expect(before.some((e) => e.type === 'node.detail' && e.detail['background'] === true && e.detail['agentId'])).toBe(
      true,
    );

    expect(brief(after, names).filter((l) => !l.includes('says'))).toEqual([
      'tool_call:echo sub > sub.txt output "(Bash completed with no output)"',
      'tool_call:echo sub > sub.txt completed',
      'subagent:Write a file text "Subagent done: wrote sub.txt."',
      'subagent:Write a file completed',
    ]);
    // Its events are on the run that spawned it; the agent's own turn asks for a run of its own
    // (claude-own-turns.test.ts) and begins nothing of Baton's message, which still waits.
    const own = after.filter((e) => e.type === 'agent.turn');
    expect(own).toHaveLength(1);
    expect(after.filter((e) => 'runId' in e && e.runId !== null && e.runId !== one.runId)).toEqual(own);
    expect(after.some((e) => e.type === 'turn.started' || e.type === 'turn.completed')).toBe(false);
    expect(n.waiting).toBe(two);
  });

  it("an interrupted parent turn ends its foreground subagent (and the subagent's open tool) interrupted; the agent gone ends a background one", () => {
    const frames = recorded.foreground;
    const { n, one } = setup(frames);
    const names = new Map([[one.rootNodeId as string, 'root']]);
    const bashUse = frames.findIndex((f) => f.type === 'assistant' && JSON.stringify(f).includes('toolu_sub_bash1'));
    const events = frames.slice(0, bashUse + 1).flatMap((f) => n.normalize(f));
    n.interruptRequested = true;
    events.push(...n.normalize({ type: 'result', subtype: 'error_during_execution', session_id: 's', errors: [] }));
    expect(brief(events, names)).toEqual([
      'start subagent:Write a file under root',
      'start tool_call:echo sub > sub.txt under subagent:Write a file',
      'tool_call:echo sub > sub.txt interrupted',
      'subagent:Write a file interrupted',
      'turn root interrupted',
    ]);
    // A late notification of the stopped subagent changes nothing.
    expect(n.normalize({ ...frames.find((f) => JSON.stringify(f).includes('task_notification'))! })).toEqual([]);

    const bg = recorded.background;
    const b = setup(bg);
    const rootResult = bg.findIndex((f) => f.type === 'result');
    bg.slice(0, rootResult + 1).forEach((f) => b.n.normalize(f));
    const closed = b.n.closeSubagents();
    expect(
      closed.filter((e) => e.type === 'node.completed').map((e) => e.type === 'node.completed' && e.status),
    ).toEqual(expect.arrayContaining(['interrupted']));
    expect(b.n.closeSubagents()).toEqual([]);
  });
});
