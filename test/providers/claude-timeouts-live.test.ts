import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/domain/events.js';
import { ManualClock } from '../../src/domain/sources.js';
import type { Store } from '../../src/persistence/store.js';
import { ClaudeProvider, type ClaudeProviderOptions } from '../../src/providers/claude/claude-provider.js';
import { ScriptedMessagesServer, type MessagesTurn } from '../../src/providers/model/scripted-messages-server.js';
import { isAlive, signal } from '../support/processes.js';
import { createHarness, type Harness } from '../support/runtime.js';
import { TempFolders } from '../support/temp.js';

/**
 * Nothing hangs for ever on Claude either: a Claude agent that does not end its turn after
 * an interrupt is killed and the run ends; a turn the agent says nothing about is timed out
 * by the adapter's watchdog. Live: the real agent, frozen with SIGSTOP, and a model endpoint
 * that never sends its headers.
 */
const temps = new TempFolders();
const stores: Store[] = [];
const providers: ClaudeProvider[] = [];
let server: ScriptedMessagesServer | null = null;

const myAgents = () =>
  spawnSync('pgrep', ['-P', String(process.pid), '-f', 'claude-agent-sdk-linux-x64/claude'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((line) => line.trim());

afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.stopAll('SIGKILL')));
  expect(myAgents()).toEqual([]);
  stores.splice(0).forEach((s) => s.close());
  await server?.stop();
  server = null;
  temps.removeAll();
});

async function setup(
  tuning: Pick<ClaudeProviderOptions, 'interruptTimeoutMs' | 'turnIdleTimeoutMs'>,
  ...turns: MessagesTurn[]
): Promise<{ h: Harness; cwd: string; model: ScriptedMessagesServer }> {
  const model = await new ScriptedMessagesServer().start();
  server = model;
  model.enqueue(...turns);
  const dir = temps.make('baton-claude-timeouts-');
  const cwd = realpathSync(temps.make('baton-claude-ws-'));
  const h = createHarness(
    {
      defaultProvider: 'claude',
      providers: (runtime) => {
        const provider = new ClaudeProvider(runtime, {
          endpoint: { baseUrl: model.baseUrl, model: 'claude-sonnet-4-5' },
          dataDir: join(dir, 'data'),
          ...tuning,
        });
        providers.push(provider);
        return [provider.provider()];
      },
    },
    join(dir, 'baton.sqlite'),
    'c',
    new ManualClock(),
    (s) => stores.push(s),
  );
  return { h, cwd, model };
}

const run = (h: Harness, runId: string) => h.store.projections.get('runs', runId)!;
const terminalOf = (h: Harness, runId: string) =>
  h.published.find(
    (e): e is DomainEvent & { payload: { status: string; error: { code: string; message: string } | null } } =>
      e.type === 'run.terminal' && (e.payload as { runId: string }).runId === runId,
  )?.payload;
const userTexts = (body: unknown): string => JSON.stringify((body as { messages: unknown }).messages);

describe('Claude, live: an interrupt the agent does not end escalates', () => {
  const stops = [
    { how: 'run.interrupt', command: (runId: string) => ({ type: 'run.interrupt', runId }) },
    { how: 'thread.stop', command: (_runId: string, threadId: string) => ({ type: 'thread.stop', threadId }) },
  ] as const;
  it.each(stops)(
    'with the agent frozen mid-turn, $how kills it: the run ends interrupted, and the next message resumes the session',
    async ({ command }) => {
      const { h, cwd, model } = await setup(
        { interruptTimeoutMs: 1_500 },
        { kind: 'text', text: 'Before the freeze.' },
        { kind: 'hang', text: 'Let me see' },
        { kind: 'text', text: 'Back again.' },
      );
      const threadId = await h.thread({ cwd });
      const one = await h.send(threadId, 'first');
      await h.until(() => run(h, one).status === 'completed');
      const two = await h.send(threadId, 'second');
      await h.until(() => run(h, two).status === 'running');
      await model.waitForRequests(2);
      const pid = providers[0]!.adapter(threadId).pid!;
      process.kill(pid, 'SIGSTOP');
      try {
        expect(await h.command(command(two, threadId))).toMatchObject({ ok: true });
        await h.until(() => run(h, two).status === 'interrupted', 20_000);
        expect(terminalOf(h, two)).toMatchObject({
          status: 'interrupted',
          error: {
            code: 'timeout',
            message: expect.stringMatching(/did not end within 1500 ms of the interrupt; its process was killed/),
          },
        });
        expect(isAlive(pid)).toBe(false);
      } finally {
        signal(pid, 'SIGKILL');
      }

      const three = await h.send(threadId, 'third');
      await h.until(() => run(h, three).status === 'completed');
      expect(providers[0]!.adapter(threadId).pid).not.toBe(pid);
      // Resumed, not restarted: the model saw the conversation from before the freeze.
      expect(userTexts(model.messageRequests.at(-1)!.body)).toContain('Before the freeze.');
    },
    60_000,
  );
});

describe('Claude, live: the turn watchdog', () => {
  it('a model endpoint that never answers (no headers) fails the run with a typed timeout; the thread goes on', async () => {
    const { h, cwd, model } = await setup(
      { turnIdleTimeoutMs: 2_000, interruptTimeoutMs: 3_000 },
      { kind: 'silent' },
      { kind: 'text', text: 'Here now.' },
    );
    const threadId = await h.thread({ cwd });
    const one = await h.send(threadId, 'are you there?');
    await h.until(() => run(h, one).status === 'failed', 30_000);
    expect(model.messageRequests).toHaveLength(1);
    expect(terminalOf(h, one)).toMatchObject({
      status: 'failed',
      error: { code: 'timeout', message: expect.stringMatching(/nothing on the turn for 2000 ms/) },
    });

    const two = await h.send(threadId, 'and now?');
    await h.until(() => run(h, two).status === 'completed');
  }, 60_000);
});
