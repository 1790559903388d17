import { describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/domain/events.js';
import type { CodexProviderOptions } from '../../src/providers/codex/codex-provider.js';
import { useLiveCodex } from '../support/live-codex.js';
import type { Harness } from '../support/runtime.js';
import { isAlive, signal } from '../support/processes.js';

/**
 * Nothing hangs for ever: a Codex that does not answer an interrupt is killed and the run
 * ends; a turn Codex says nothing about is timed out by the adapter's watchdog. Live: the
 * real binary, frozen with SIGSTOP, and a model endpoint that never sends its headers.
 */
let tuning: Pick<CodexProviderOptions, 'interruptTimeoutMs' | 'turnIdleTimeoutMs'> = {};
/** Codex's own stream idle timeout, set long so that it cannot be what ends a silent turn. */
const { model, providers, open, workspace } = useLiveCodex({ streamIdleTimeoutMs: 60_000, provider: () => tuning });

const run = (h: Harness, runId: string) => h.store.projections.get('runs', runId)!;
const terminalOf = (h: Harness, runId: string) =>
  h.published.find(
    (e): e is DomainEvent & { payload: { status: string; error: { code: string; message: string } | null } } =>
      e.type === 'run.terminal' && (e.payload as { runId: string }).runId === runId,
  )?.payload;

async function send(h: Harness, threadId: string, text: string): Promise<string> {
  const ack = (await h.command({ type: 'thread.message.send', threadId, text })) as {
    ok: boolean;
    result: { runId: string };
  };
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
  return ack.result.runId;
}

describe('Codex, live: an interrupt Codex does not answer escalates', () => {
  const stops = [
    { how: 'run.interrupt', command: (runId: string) => ({ type: 'run.interrupt', runId }) },
    { how: 'thread.stop', command: (_runId: string, threadId: string) => ({ type: 'thread.stop', threadId }) },
  ];
  it.each(stops)(
    'with Codex frozen mid-turn, $how kills it: the run ends interrupted, and the next message resumes the thread',
    async ({ command }) => {
      tuning = { interruptTimeoutMs: 1_500 };
      const h = open();
      const threadId = await h.thread({ cwd: workspace() });
      model.enqueue({ kind: 'text', text: 'Before the freeze.' }, { kind: 'hang' });
      const one = await send(h, threadId, 'first');
      await h.until(() => run(h, one).status === 'completed');
      const two = await send(h, threadId, 'second');
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
            message: expect.stringMatching(/did not answer the interrupt within 1500 ms; its process was killed/),
          },
        });
        expect(isAlive(pid)).toBe(false);
      } finally {
        signal(pid, 'SIGKILL');
      }

      model.enqueue({ kind: 'text', text: 'Back again.' });
      const three = await send(h, threadId, 'third');
      await h.until(() => run(h, three).status === 'completed');
      expect(providers[0]!.adapter(threadId).pid).not.toBe(pid);
      // Resumed, not restarted: the model saw the conversation from before the freeze.
      expect(JSON.stringify(model.requests.at(-1)!.body.input)).toContain('Before the freeze.');
    },
    60_000,
  );
});

describe('Codex, live: the turn watchdog', () => {
  it('a model endpoint that never answers (no headers) fails the run with a typed timeout; the thread goes on', async () => {
    tuning = { turnIdleTimeoutMs: 2_000, interruptTimeoutMs: 3_000 };
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    model.enqueue({ kind: 'silent' });
    const one = await send(h, threadId, 'are you there?');
    await h.until(() => run(h, one).status === 'failed', 30_000);
    expect(model.requests).toHaveLength(1);
    expect(terminalOf(h, one)).toMatchObject({
      status: 'failed',
      error: { code: 'timeout', message: expect.stringMatching(/nothing on the turn for 2000 ms/) },
    });

    model.enqueue({ kind: 'text', text: 'Here now.' });
    const two = await send(h, threadId, 'and now?');
    await h.until(() => run(h, two).status === 'completed');
  }, 60_000);
});
