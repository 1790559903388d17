import { describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/domain/events.js';
import type { ClaudeProviderOptions } from '../../src/providers/claude/claude-provider.js';
import type { MessagesTurn } from '../../src/providers/model/scripted-messages-server.js';
import { useLiveClaude, type LiveClaudeRun } from '../support/live-claude.js';
import { isAlive, signal } from '../support/processes.js';
import type { Harness } from '../support/runtime.js';

/**
 * Nothing hangs for ever on Claude either: a Claude agent that does not end its turn after
 * an interrupt is killed and the run ends; a turn the agent says nothing about is timed out
 * by the adapter's watchdog. Live: the real agent, frozen with SIGSTOP, and a model endpoint
 * that never sends its headers.
 */
const claude = useLiveClaude();
const { providers } = claude;

async function setup(
  tuning: Pick<ClaudeProviderOptions, 'interruptTimeoutMs' | 'turnIdleTimeoutMs'>,
  ...turns: MessagesTurn[]
): Promise<LiveClaudeRun> {
  const live = await claude.setup({ provider: tuning });
  live.model.enqueue(...turns);
  return live;
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
