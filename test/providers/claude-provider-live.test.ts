import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessagesResponder } from '../../src/providers/model/scripted-messages-server.js';
import { useLiveClaude } from '../support/live-claude.js';
import { userTexts } from '../support/messages-request.js';
import type { Harness } from '../support/runtime.js';

/**
 * Baton's Claude provider with the real agent, beyond the shared scenarios: the session id
 * is the native thread, bound to the provider thread and resumed by id in a new agent
 * process (after the agent was killed, and after Baton restarted), with the history.
 */
const claude = useLiveClaude();
const { providers, restart } = claude;
const setup = (responder?: MessagesResponder) => claude.setup({ responder });

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;

describe('the Claude provider, live', () => {
  it(
    'binds the session id to the provider thread and resumes it after a Baton restart, with the history',
    { timeout: 60_000 },
    async () => {
      const { h, cwd, dataDir, model } = await setup();
      model.enqueue({ kind: 'text', text: 'Noted: 42.' }, { kind: 'text', text: 'It was 42.' });
      const threadId = await h.thread({ threadId: 'thr_resume', cwd });
      const one = await h.send(threadId, 'remember 42');
      await h.until(() => status(h, one) === 'completed');
      const providerThreadId = h.store.projections.get('runs', one)!.attempts[0]!.providerThreadId!;
      const session = h.runtime.providerHost('claude').nativeThreadRef(providerThreadId);
      expect(session).toMatch(/^[0-9a-f-]{36}$/);
      expect(model.messageRequests[0]!.headers['x-claude-code-session-id']).toBe(session);
      // The agent's folders are the thread's, under the data dir; its transcript is in its config dir.
      const projects = join(dataDir, 'claude', threadId, 'config', 'projects');
      expect(readdirSync(projects).flatMap((p) => readdirSync(join(projects, p)))).toContain(`${session}.jsonl`);

      const h2 = await restart(h);
      const two = await h2.send(threadId, 'what was it?');
      await h2.until(() => status(h2, two) === 'completed');
      expect(model.messageRequests).toHaveLength(2);
      expect(model.messageRequests[1]!.headers['x-claude-code-session-id']).toBe(session);
      expect(userTexts(model.messageRequests[1]!)).toEqual(['remember 42', 'what was it?']);
      expect(h2.runtime.providerHost('claude').nativeThreadRef(providerThreadId)).toBe(session);
      // Each run's native turn is the uuid of its user message, bound to its attempt.
      const attempts = [one, two].map((r) => h2.store.projections.get('runs', r)!.attempts[0]!.id);
      const turns = attempts.map((a) => h2.runtime.providerHost('claude').nativeTurnRef(a));
      expect(turns[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(turns).size).toBe(2);
    },
  );

  it(
    'an interrupt that comes before the agent began the turn interrupts it as it begins',
    { timeout: 60_000 },
    async () => {
      // Whether the agent asks the model before the interrupt reaches it is its business: the
      // first message hangs if it is asked, the second is answered.
      const { h, cwd } = await setup((request) =>
        userTexts(request).at(-1) === 'take your time' ? { kind: 'hang' } : { kind: 'text', text: 'Still here.' },
      );
      const threadId = await h.thread({ threadId: 'thr_early', cwd });
      const one = await h.send(threadId, 'take your time');
      // The turn start is carried out (the message handed to the agent), then at once the interrupt.
      await h.worker.runOnce();
      expect((await h.command({ type: 'run.interrupt', runId: one })).ok).toBe(true);
      await h.until(() => status(h, one) === 'interrupted');
      const types = h.store.events.readThreadAfter(threadId, 0).map((e) => e.type);
      expect(types.indexOf('run.interrupt-acknowledged')).toBeGreaterThan(-1);
      expect(types.indexOf('run.interrupt-acknowledged')).toBeLessThan(types.indexOf('run.terminal'));
      const two = await h.send(threadId, 'are you there?');
      await h.until(() => status(h, two) === 'completed');
    },
  );

  it(
    'a killed agent fails its run; the next message resumes the same session in a new process',
    { timeout: 60_000 },
    async () => {
      const { h, cwd, model } = await setup();
      model.enqueue({ kind: 'text', text: 'First.' }, { kind: 'hang' }, { kind: 'text', text: 'Back.' });
      const threadId = await h.thread({ threadId: 'thr_killed', cwd });
      const one = await h.send(threadId, 'first');
      await h.until(() => status(h, one) === 'completed');
      const two = await h.send(threadId, 'second');
      await h.until(() => status(h, two) === 'running');
      await model.waitForRequests(2);
      const adapter = providers.at(-1)!.adapter(threadId);
      const pid = adapter.pid!;
      process.kill(pid, 'SIGKILL');
      await h.until(() => status(h, two) === 'failed');
      expect(h.store.projections.get('runs', two)!.error).toMatchObject({ code: 'provider_error' });
      const three = await h.send(threadId, 'third');
      await h.until(() => status(h, three) === 'completed');
      expect(adapter.pid).not.toBe(pid);
      expect(userTexts(model.messageRequests[2]!)).toEqual(expect.arrayContaining(['first', 'third']));
      expect(model.messageRequests[2]!.headers['x-claude-code-session-id']).toBe(
        model.messageRequests[0]!.headers['x-claude-code-session-id'],
      );
      expect(existsSync(cwd)).toBe(true);
    },
  );
});
