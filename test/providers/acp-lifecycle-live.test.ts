import { describe, expect, it } from 'vitest';
import { acpAgentProcesses, useLiveAcp } from '../support/live-acp.js';
import { userTexts } from '../support/messages-request.js';
import type { Harness } from '../support/runtime.js';

/**
 * A turn's life on the real agents: interrupted by `session/cancel` (the cancel is only
 * acknowledged; the prompt's `cancelled` stop reason ends the run), and a session taken up
 * again by its id after the agent was killed and after Baton restarted.
 */
const acp = useLiveAcp();

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;
const types = (h: Harness, threadId: string) => h.store.events.readThreadAfter(threadId, 0).map((e) => e.type);
const inputTexts = (body: Record<string, unknown>): string[] =>
  (Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [])
    .filter((i) => i.role === 'user')
    .flatMap((i) => (Array.isArray(i.content) ? (i.content as { text?: string }[]) : []).map((c) => c.text ?? ''));

describe('ACP turns, live', () => {
  it(
    'claude-agent-acp: an interrupt ends the run interrupted, acknowledged first; the next message gets its own reply',
    { timeout: 60_000 },
    async () => {
      const { h, cwd, messages } = await acp.setup({
        claude: (request) =>
          userTexts(request).at(-1) === 'take your time'
            ? { kind: 'hang', text: 'Working' }
            : { kind: 'text', text: `Answer to: ${userTexts(request).at(-1)}` },
      });
      const threadId = await h.thread({ threadId: 'thr_acp_int', cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
      const one = await h.send(threadId, 'take your time');
      // The worker runs only inside until(): the agent streams the hanging reply's first text.
      await h.until(() => messages.messageRequests.length === 1 && h.published.some((e) => e.type === 'message.delta'));
      expect((await h.command({ type: 'run.interrupt', runId: one })).ok).toBe(true);
      await h.until(() => status(h, one) === 'interrupted');
      const t = types(h, threadId);
      expect(t.indexOf('run.interrupt-acknowledged')).toBeGreaterThan(-1);
      expect(t.indexOf('run.interrupt-acknowledged')).toBeLessThan(t.indexOf('run.terminal'));
      // claude-agent-acp's cancel race: the first prompt after a cancel must still get its own reply.
      const two = await h.send(threadId, 'are you there?');
      await h.until(() => h.ended(two));
      expect(status(h, two)).toBe('completed');
      expect(h.store.projections.list('messages', threadId).at(-1)?.text).toBe('Answer to: are you there?');
      // And the one after it gets its own, once.
      const three = await h.send(threadId, 'and now?');
      await h.until(() => h.ended(three));
      const texts = h.store.projections.list('messages', threadId).map((m) => m.text);
      expect(texts.slice(-4)).toEqual([
        'are you there?',
        'Answer to: are you there?',
        'and now?',
        'Answer to: and now?',
      ]);
      expect(messages.messageRequests).toHaveLength(3);
    },
  );

  it('codex-acp: an interrupt ends the run interrupted', { timeout: 60_000 }, async () => {
    const { h, cwd, responses } = await acp.setup();
    responses.enqueue({ kind: 'hang', text: 'Working' }, { kind: 'text', text: 'Here again.' });
    const threadId = await h.thread({ threadId: 'thr_acp_cint', cwd, provider: 'acp', acpAgent: 'codex-acp' });
    const one = await h.send(threadId, 'take your time');
    await h.until(() => status(h, one) === 'running');
    await responses.waitForRequests(1);
    expect((await h.command({ type: 'run.interrupt', runId: one })).ok).toBe(true);
    await h.until(() => status(h, one) === 'interrupted');
    const two = await h.send(threadId, 'are you there?');
    await h.until(() => h.ended(two));
    expect(status(h, two)).toBe('completed');
    expect(h.store.projections.list('messages', threadId).at(-1)?.text).toBe('Here again.');
  });

  it(
    'claude-agent-acp: a killed agent fails its run; the next message resumes the same session in a new process',
    { timeout: 60_000 },
    async () => {
      const { h, cwd, messages, provider } = await acp.setup();
      messages.enqueue({ kind: 'text', text: 'First.' }, { kind: 'hang' }, { kind: 'text', text: 'Back.' });
      const threadId = await h.thread({ threadId: 'thr_acp_kill', cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
      const one = await h.send(threadId, 'first');
      await h.until(() => status(h, one) === 'completed');
      const two = await h.send(threadId, 'second');
      // The turn start is carried out (the prompt sent) inside until(); the model then gets the hanging request.
      await h.until(() => status(h, two) === 'running');
      await messages.waitForRequests(2);
      const adapter = provider.adapter(threadId);
      const pid = adapter.pid!;
      process.kill(pid, 'SIGKILL');
      await h.until(() => status(h, two) === 'failed');
      expect(h.run(two).error).toMatchObject({ code: 'provider_error' });
      const three = await h.send(threadId, 'third');
      await h.until(() => status(h, three) === 'completed');
      expect(adapter.pid).not.toBe(pid);
      expect(userTexts(messages.messageRequests[2]!)).toEqual(expect.arrayContaining(['first', 'third']));
      expect(messages.messageRequests[2]!.headers['x-claude-code-session-id']).toBe(
        messages.messageRequests[0]!.headers['x-claude-code-session-id'],
      );
    },
  );

  for (const agent of ['claude-agent-acp', 'codex-acp'] as const) {
    it(
      `${agent}: after Baton is killed and restarts, the next message resumes the same session with its history`,
      { timeout: 90_000 },
      async () => {
        const { h, cwd, messages, responses } = await acp.setup();
        messages.enqueue({ kind: 'text', text: 'Noted: 42.' }, { kind: 'text', text: 'It was 42.' });
        responses.enqueue({ kind: 'text', text: 'Noted: 42.' }, { kind: 'text', text: 'It was 42.' });
        const threadId = await h.thread({ threadId: 'thr_acp_restart', cwd, provider: 'acp', acpAgent: agent });
        const one = await h.send(threadId, 'remember 42');
        await h.until(() => status(h, one) === 'completed');
        const providerThreadId = h.run(one).attempts[0]!.providerThreadId!;
        const session = h.runtime.providerHost('acp').nativeThreadRef(providerThreadId);
        expect(session).toBeTruthy();

        const h2 = await acp.restart(h);
        expect(acpAgentProcesses()).toEqual([]);
        const two = await h2.send(threadId, 'what was it?');
        await h2.until(() => status(h2, two) === 'completed');
        expect(h2.store.projections.list('messages', threadId).at(-1)?.text).toBe('It was 42.');
        expect(h2.runtime.providerHost('acp').nativeThreadRef(providerThreadId)).toBe(session);
        if (agent === 'claude-agent-acp') {
          expect(userTexts(messages.messageRequests[1]!)).toEqual(
            expect.arrayContaining(['remember 42', 'what was it?']),
          );
        } else {
          expect(inputTexts(responses.requests[1]!.body)).toEqual(
            expect.arrayContaining(['remember 42', 'what was it?']),
          );
        }
      },
    );
  }
});
