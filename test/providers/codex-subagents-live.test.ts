import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { boundNativeThreadRef } from '../../src/actors/runtime-provider-host.js';
import type { Store } from '../../src/persistence/store.js';
import type { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { CodexSession } from '../../src/providers/codex/codex-session.js';
import type { ModelTurn, SseEvent } from '../../src/providers/model/scripted-model-server.js';
import { useScriptedModel } from '../support/model.js';
import { dataDirOf } from '../support/scenario-kit/agent-providers.js';
import { assistantTexts, send, status } from '../support/scenario-kit/baton.js';
import { TempFolders } from '../support/temp.js';
import { runCodexScenario } from './codex-scenario-channels.js';
import { codexModel, type CodexScenario } from './codex-scenarios.js';

/**
 * Live against the real `codex app-server` and the scripted model: what Baton does about a
 * Codex subagent beyond the shared scenarios. Codex leaves a subagent running when its root
 * turn is interrupted (measured, docs/codex.md); Baton's interrupt of the run stops it too.
 * A child asked again (`followup_task`) is a later subagent node on the same native thread,
 * which Codex will not roll back (`subagents.canRollbackSubagentThread: false`).
 */
const model = useScriptedModel();
const folders = new TempFolders();
const finished: { providers: CodexProvider[]; stores: Store[] }[] = [];
afterEach(() => {
  for (const { providers, stores } of finished.splice(0)) {
    providers.forEach((p) => p.stopAll('SIGKILL'));
    stores.forEach((s) => s.close());
  }
});
afterAll(() => folders.removeAll());

async function live(scenario: CodexScenario, dir = folders.make('baton-codex-sub-run-')): Promise<void> {
  model.enqueue(...scenario.model);
  finished.push(
    await runCodexScenario({
      scenario,
      cwd: realpathSync(folders.make('baton-codex-sub-ws-')),
      dir,
      checkpointsRoot: join(dir, 'checkpoints'),
      live: true,
      modelBaseUrl: model.baseUrl,
      modelAsked: (n) => model.waitForRequests(n),
      kill: (provider, threadId) => process.kill(provider.adapter(threadId).pid!, 'SIGKILL'),
    }),
  );
}

/** One model response of the parent's: multi_agent_v2 `collaboration` calls, then the end of the response. */
function collaboration(id: string, ...calls: [name: string, args: Record<string, unknown>][]): ModelTurn {
  const usage = { input_tokens: 0, input_tokens_details: null, output_tokens: 0, output_tokens_details: null };
  const events: SseEvent[] = calls.map(([name, args], i) => ({
    type: 'response.output_item.done',
    item: {
      type: 'function_call',
      call_id: `${id}_${i}`,
      namespace: 'collaboration',
      name,
      arguments: JSON.stringify(args),
    },
  }));
  return {
    kind: 'events',
    events: [
      { type: 'response.created', response: { id } },
      ...events,
      { type: 'response.completed', response: { id, usage: { ...usage, total_tokens: 0 } } },
    ],
  };
}

const wait: [string, Record<string, unknown>] = ['wait_agent', { timeout_ms: 3_600_000 }];
const told = (i: number) => JSON.stringify(model.requests[i]!.body.input);

/** The parent spawns a `writer` child and waits; the child writes a.txt and says so. */
const spawnWriter = (): ModelTurn[] => [
  collaboration(
    'resp_spawn',
    ['spawn_agent', { task_name: 'writer', message: 'Write a.txt.', fork_turns: 'none' }],
    wait,
  ),
  ...codexModel([
    { kind: 'add_file', path: 'a.txt', content: 'a\n', callId: 'call_write_a' },
    { kind: 'text', text: 'Wrote a.txt.' },
  ]),
];

describe('a Codex subagent, live', () => {
  it('a child a later session meets again (after its Codex was killed) goes on in the same provider thread', async () => {
    await live({
      name: 'subagent_next_session',
      model: [
        ...spawnWriter(),
        ...codexModel([{ kind: 'text', text: 'The writer wrote a.txt.' }]),
        collaboration('resp_followup', ['followup_task', { target: 'writer', message: 'Anything else?' }], wait),
        ...codexModel([
          { kind: 'text', text: 'Nothing else.' },
          { kind: 'text', text: 'The writer is done.' },
        ]),
      ],
      async drive({ h, cwd, kill }) {
        const threadId = await h.thread({ threadId: 'thr_sub_next', cwd });
        const one = await send(h, threadId, 'have a writer write a.txt');
        await h.until(() => status(h, one) === 'completed');
        const [first] = h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'subagent');
        const sessionOf = () => h.store.projections.list('sessions', threadId).at(-1);
        const killed = sessionOf()!.id;
        kill(threadId);
        await h.until(() => h.store.projections.get('sessions', killed)?.status === 'stopped');
        expect(h.store.entities.get(first!.providerThreadId!)?.snapshot).toMatchObject({ value: 'not_loaded' });

        // A new Codex resumes the parent, and the follow-up reaches the same child conversation.
        const two = await send(h, threadId, 'ask the writer if there is anything else');
        await h.until(() => status(h, two) === 'completed');
        expect(sessionOf()!.id).not.toBe(killed);
        const nodes = h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'subagent');
        expect(nodes.map((n) => [n.runId, n.providerThreadId, n.detail?.['nativeThreadId']])).toEqual([
          [one, first!.providerThreadId, first!.detail?.['nativeThreadId']],
          [two, first!.providerThreadId, first!.detail?.['nativeThreadId']],
        ]);
        expect(h.store.entities.get(first!.providerThreadId!)?.snapshot).toMatchObject({
          value: 'idle',
          context: { firstRunOrdinal: 1, lastRunOrdinal: 2 },
        });
      },
    });
  });

  it('an interrupt of the run interrupts its running subagent too: both end interrupted, nothing is asked of the model again', async () => {
    await live({
      name: 'subagent_interrupt',
      model: codexModel([
        {
          kind: 'subagent',
          description: 'Think forever',
          prompt: 'Think about it.',
          steps: [{ kind: 'hang' }],
          callId: 'call_sub_hang',
        },
      ]),
      async drive({ h, cwd, modelAsked }) {
        const threadId = await h.thread({ threadId: 'thr_sub_interrupt', cwd });
        const runId = await send(h, threadId, 'have a helper think');
        const subagent = () =>
          h.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'subagent' && n.runId === runId);
        // The child's model request hangs: its turn runs, and the parent waits on it.
        await h.until(() => subagent()?.detail?.['nativeTurnId'] !== undefined);
        await modelAsked(2);
        expect((await h.command({ type: 'run.interrupt', runId })).ok).toBe(true);
        await h.until(() => status(h, runId) === 'interrupted' && subagent()?.status === 'interrupted');
        expect(model.requests.length).toBe(2);
      },
    });
  });

  it("a fork from the subagent's node forks the child's own thread: the fork's first request carries the child's conversation, not the parent's", async () => {
    await live({
      name: 'subagent_fork',
      model: [
        ...codexModel([
          {
            kind: 'subagent',
            description: 'Work out the answer',
            prompt: 'What is six times seven? Answer in one sentence.',
            steps: [{ kind: 'text', text: 'Six times seven is 42.' }],
            callId: 'call_sub_fork',
          },
          { kind: 'text', text: 'My helper worked it out: 42.' },
        ]),
        { kind: 'text', text: 'And doubled, 84.' },
      ],
      async drive({ h, cwd }) {
        const threadId = await h.thread({ threadId: 'thr_sub_source', cwd });
        const runId = await send(h, threadId, 'ask a helper what six times seven is');
        await h.until(() => status(h, runId) === 'completed');
        const sub = h.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'subagent')!;
        expect(sub.status).toBe('completed');
        const childThread = sub.detail?.['nativeThreadId'];
        expect(typeof childThread).toBe('string');
        const asked = model.requests.length;
        const forked = await h.command({
          type: 'thread.fork',
          sourceThreadId: threadId,
          source: { type: 'node', nodeId: sub.id },
          threadId: 'thr_sub_fork',
        });
        expect(forked.ok, JSON.stringify(forked)).toBe(true);
        const forkRun = await send(h, 'thr_sub_fork', 'now double it');
        await h.until(() => status(h, forkRun) === 'completed');
        const resolved = h.store.events
          .readThreadAfter('thr_sub_fork', 0)
          .find((e) => e.type === 'thread.fork-resolved');
        expect((resolved?.payload as { strategy?: string }).strategy).toBe('native_fork');
        // One request for the fork's turn: the child's conversation, then the fork's message; nothing of the parent's.
        expect(model.requests.length).toBe(asked + 1);
        const told = JSON.stringify(model.requests.at(-1)!.body.input);
        expect(told).toContain('What is six times seven?');
        expect(told).toContain('Six times seven is 42.');
        expect(told).toContain('now double it');
        expect(told).not.toContain('ask a helper');
        expect(told).not.toContain('My helper worked it out');
        // Codex forked the child's thread into a new one, bound to the fork's own provider thread.
        const forkThread = h.store.projections.get('runs', forkRun)!.providerThreadId!;
        const native = boundNativeThreadRef(h.store, forkThread);
        expect(native).not.toBeNull();
        expect([
          childThread,
          boundNativeThreadRef(h.store, h.store.projections.get('runs', runId)!.providerThreadId!),
        ]).not.toContain(native);
        expect(assistantTexts(h, 'thr_sub_fork').at(-1)).toBe('And doubled, 84.');
      },
    });
  });

  it("rollback.node to a child's first turn restores its files; Codex keeps the child's later turn (it refuses thread/revert of a v2 child), and the answer says so", async () => {
    const dir = folders.make('baton-codex-sub-run-');
    const parentAsks = 'have a writer write a.txt, then b.txt';
    await live(
      {
        name: 'subagent_rollback',
        model: [
          ...spawnWriter(),
          collaboration('resp_followup', ['followup_task', { target: 'writer', message: 'Now write b.txt.' }], wait),
          ...codexModel([
            { kind: 'command', command: "printf 'b\\n' > b.txt", needsApproval: true, callId: 'call_write_b' },
            { kind: 'text', text: 'Wrote b.txt.' },
            { kind: 'text', text: 'Both files are written.' },
          ]),
          collaboration('resp_again', ['followup_task', { target: 'writer', message: 'Anything else?' }], wait),
          ...codexModel([
            { kind: 'text', text: 'Nothing else.' },
            { kind: 'text', text: 'The writer is done.' },
            { kind: 'text', text: 'I wrote a.txt.' },
          ]),
        ],
        async drive({ h, cwd, kill }) {
          const threadId = await h.thread({ threadId: 'thr_sub_rollback', cwd });
          const runId = await send(h, threadId, parentAsks);
          const writer = () => h.store.projections.list('graph_nodes', threadId).filter((n) => n.kind === 'subagent');
          const checkpointOf = (nodeId: string) =>
            h.store.projections
              .list('checkpoints', threadId)
              .find((c) => c.scopeKind === 'subagent' && c.nodeId === nodeId && c.status === 'ready');
          // The follow-up's command waits on its approval: by then the first turn's scope is captured (a.txt only).
          await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
          await h.until(() => writer().length === 2 && checkpointOf(writer()[0]!.id) !== undefined);
          const request = h.store.projections.list('requests', threadId).find((r) => r.status === 'pending')!;
          expect(
            (await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' })).ok,
          ).toBe(true);
          await h.until(() => status(h, runId) === 'completed');
          const [first, second] = writer();
          const child = first!.detail?.['nativeThreadId'] as string;
          expect(second!.detail?.['nativeThreadId']).toBe(child);
          expect(second!.detail?.['nativeTurnId']).not.toBe(first!.detail?.['nativeTurnId']);
          expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('b\n');

          const ack = await h.command({
            type: 'rollback.node',
            nodeId: first!.id,
            checkpointId: checkpointOf(first!.id)!.id,
          });
          expect(ack, JSON.stringify(ack)).toMatchObject({
            ok: true,
            result: { changedPaths: ['b.txt'], conversation: 'not_supported', laterChildNodeIds: [second!.id] },
          });
          expect([readFileSync(join(cwd, 'a.txt'), 'utf8'), existsSync(join(cwd, 'b.txt'))]).toEqual(['a\n', false]);

          // The answer is what Codex does: the parent's next follow-up reaches a child that still holds its second turn.
          const asked = model.requests.length;
          const again = await send(h, threadId, 'ask the writer if there is anything else');
          await h.until(() => status(h, again) === 'completed');
          const childAsked = model.requests
            .slice(asked)
            .findIndex((r) => !JSON.stringify(r.body.input).includes(parentAsks));
          expect(childAsked).toBeGreaterThanOrEqual(0);
          const childTold = told(asked + childAsked);
          expect([childTold.includes('Anything else?'), childTold.includes('Wrote b.txt.')]).toEqual([true, true]);

          // A fork from the first turn's node goes on from that turn: the child's later turns are not in it.
          const forked = await h.command({
            type: 'thread.fork',
            sourceThreadId: threadId,
            source: { type: 'node', nodeId: first!.id },
            threadId: 'thr_sub_rollback_fork',
          });
          expect(forked.ok, JSON.stringify(forked)).toBe(true);
          const forkRun = await send(h, 'thr_sub_rollback_fork', 'what did you write?');
          await h.until(() => status(h, forkRun) === 'completed');
          const forkTold = told(model.requests.length - 1);
          expect(['Write a.txt.', 'Wrote a.txt.', 'what did you write?'].map((t) => forkTold.includes(t))).toEqual([
            true,
            true,
            true,
          ]);
          expect(
            ['Now write b.txt.', 'Wrote b.txt.', 'Anything else?', parentAsks].some((t) => forkTold.includes(t)),
          ).toBe(false);
          expect(assistantTexts(h, 'thr_sub_rollback_fork').at(-1)).toBe('I wrote a.txt.');

          // Why the flag is false: Codex refuses thread/revert of a multi_agent_v2 child, even loaded through its resumed parent.
          kill(threadId);
          await h.until(() => h.store.projections.list('sessions', threadId).every((x) => x.status === 'stopped'));
          const parent = boundNativeThreadRef(h.store, h.store.projections.get('runs', runId)!.providerThreadId!)!;
          const codex = await CodexSession.start({ codexHome: join(dataDirOf(dir), 'codex', 'home'), cwd });
          try {
            // A v2 child resumes only through its parent (alone: "resume the parent first").
            await codex.threadResume(parent);
            expect(await codex.threadResume(child)).toBe(child);
            const turns = await codex.threadTurnIds(child);
            expect(turns).toHaveLength(3);
            expect(turns.slice(0, 2)).toEqual([first!.detail?.['nativeTurnId'], second!.detail?.['nativeTurnId']]);
            await expect(codex.threadRevert(child, turns[1]!)).rejects.toThrow(
              /direct app-server input is not allowed for multi-agent v2 sub-agents/,
            );
            expect(await codex.threadTurnIds(child)).toEqual(turns);
          } finally {
            const gone = new Promise<void>((resolve) => codex.rpc.onClose(() => resolve()));
            codex.stop('SIGKILL');
            await gone;
          }
        },
      },
      dir,
    );
  });
});
