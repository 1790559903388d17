import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ReplayChannel } from '../../src/providers/transport/transcript.js';
import { TempFolders } from '../support/temp.js';
import {
  delegationReplayChannel,
  readDelegationTranscripts,
  runDelegationScenario,
  type DelegationScenario,
} from './delegation-channels.js';
import { delegationScenarios } from './delegation-scenarios.js';

/**
 * Issue 16's delegation scenarios replayed from their transcripts (recorded with
 * `npm run record:delegation`): no agent runs and no model is asked; the recorded Codex and
 * Claude processes stand in for the agents, and their calls to Baton's MCP server are made
 * again by the replay, with the credentials this Baton minted for them, at their place among
 * the frames. Baton (runtime, store, adapters, MCP server) is the real one; each scenario
 * checks what its live test checks, against Baton's store and MCP answers.
 */

const transcripts = readDelegationTranscripts();
const folders = new TempFolders();
afterAll(() => folders.removeAll());

describe('delegation scenarios, replayed', () => {
  it('every recorded scenario is one the suite runs', () => {
    expect(transcripts.scenarios.filter((s) => !delegationScenarios.some((d) => d.name === s))).toEqual([]);
  });

  for (const scenario of delegationScenarios) it(scenario.name, () => replay(scenario, transcripts));

  it('an MCP answer Baton no longer gives as recorded fails the replay, naming the first field that differs', async () => {
    const edited = structuredClone(transcripts);
    const escalation = edited.codex.find((t) => t.header.scenario === 'escalation_refused')!;
    const call = escalation.entries.find(
      (e) => e.kind === 'mcp_request' && JSON.stringify(e.frame.body).includes('"name":"delegate_task"'),
    );
    if (call?.kind !== 'mcp_request') throw new Error('the escalation transcript has no delegate_task call');
    const refusal = call.response.messages[0] as {
      result: { structuredContent: { details: { escalation: { allowed: { runtimeMode: string } } } } };
    };
    refusal.result.structuredContent.details.escalation.allowed.runtimeMode = 'workspace_write';
    const scenario = delegationScenarios.find((s) => s.name === 'escalation_refused')!;
    await expect(replay(scenario, edited)).rejects.toThrow(
      /MCP request tools\/call delegate_task differently, first at messages\.0\.result\.structuredContent\.details\.escalation\.allowed\.runtimeMode: expected \\"workspace_write\\", sent \\"read_only\\"/,
    );
  });
});

function replay(scenario: DelegationScenario, recorded: typeof transcripts): Promise<void> {
  const dir = folders.make('baton-delegation-replay-');
  const cwd = realpathSync(folders.make('baton-delegation-ws-'));
  return runDelegationScenario(scenario, delegationReplayChannel(recorded), {
    cwd,
    dir,
    checkpointsRoot: join(dir, 'checkpoints'),
  });
}

describe('an MCP request in a replayed transcript', () => {
  it('is made once what the agent said before it is said; what it said after, and its exit, wait for the answer', async () => {
    const channel = new ReplayChannel(
      [
        { kind: 'expect_outbound', frame: { id: 1, method: 'turn/start' } },
        { kind: 'emit_inbound', frame: { said: 'before' } },
        {
          kind: 'mcp_request',
          frame: { method: 'POST', headers: {}, body: { jsonrpc: '2.0', id: 0, method: 'tools/list' } },
          response: { status: 200, messages: [] },
        },
        { kind: 'emit_inbound', frame: { said: 'after' } },
        { kind: 'runtime_exit', reason: 'killed by SIGKILL' },
      ],
      {},
    );
    const heard: string[] = [];
    channel.onLine((line) => heard.push(line));
    const closed = new Promise<string>((resolve) => channel.onClose(resolve));
    let answer: (difference: string | null) => void = () => undefined;
    const asked = new Promise<string[]>((resolve) => {
      channel.mcp = () => {
        resolve([...heard]);
        return new Promise((answered) => (answer = answered));
      };
    });
    await channel.send(JSON.stringify({ id: 1, method: 'turn/start' }));
    expect(await asked).toEqual(['{"said":"before"}']);
    // The process is killed while its request waits: it dies once the answer came and it said the rest.
    channel.terminate();
    answer('Baton answered differently');
    expect(await closed).toBe('killed by SIGKILL');
    expect(heard).toEqual(['{"said":"before"}', '{"said":"after"}']);
    expect(channel.mismatches).toEqual(['Baton answered differently']);
    expect(channel.finished).toBe(true);
  });
});
