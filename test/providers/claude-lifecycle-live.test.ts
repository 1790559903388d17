import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeSessionDirs } from '../../src/providers/claude/claude-environment.js';
import { sessionMessages, transcriptOf } from '../../src/providers/claude/claude-sessions.js';
import { claudeAgents, useLiveClaude } from '../support/live-claude.js';
import { sessionOf, texts } from '../support/messages-request.js';
import type { Harness } from '../support/runtime.js';

/**
 * Claude's conversation over time, with the real agent against the scripted model, beyond
 * the shared scenarios: what the model is sent after a rollback (only the kept turns, also
 * after a Baton restart and a second rollback), after a fork (the source's turns up to the
 * fork point; the source goes on untouched), and after a resume the agent refuses (a
 * replacement provider thread whose first request carries Baton's reseed).
 */
const claude = useLiveClaude({
  // Only the agent's turns were asked for: nothing on the side.
  verify: (model) =>
    expect(model.requests.filter((r) => `${r.method} ${r.path}?${r.query}` !== 'POST /v1/messages?beta=true')).toEqual(
      [],
    ),
});
const { providers, restart } = claude;
const setup = () => claude.setup();

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;
const dirsOf = (dataDir: string, threadId: string) => claudeSessionDirs(join(dataDir, 'claude'), threadId);
const nativeThread = (h: Harness, threadId: string) => {
  const providerThreadId = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
  return h.runtime.providerHost('claude').nativeThreadRef(providerThreadId);
};

async function run(h: Harness, threadId: string, text: string): Promise<string> {
  const runId = await h.send(threadId, text);
  await h.until(() => status(h, runId) === 'completed');
  return runId;
}

describe("Claude's conversation over time, live", () => {
  it(
    'a rollback reconciles the conversation: the next request carries the kept turns only, after a restart and a second rollback too',
    { timeout: 90_000 },
    async () => {
      const { h, cwd, dataDir, model } = await setup();
      model.enqueue(
        { kind: 'text', text: 'one' },
        { kind: 'text', text: 'two' },
        { kind: 'text', text: 'three' },
        { kind: 'text', text: 'four' },
      );
      const threadId = await h.thread({ threadId: 'thr_rollback', cwd });
      const one = await run(h, threadId, 'first');
      await run(h, threadId, 'second');
      const source = nativeThread(h, threadId)!;
      expect((await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).ok).toBe(true);
      await h.until(() =>
        h.store.events.readThreadAfter(threadId, 0).some((e) => e.type === 'provider-thread.reconciled'),
      );
      // The provider thread is bound to a new session at once; the agent writes it with the next message.
      const forked = nativeThread(h, threadId)!;
      expect(forked).not.toBe(source);
      const firstTurn = h.runtime
        .providerHost('claude')
        .nativeTurnRef(h.store.projections.get('runs', one)!.attempts[0]!.id);
      const reconciled = h.store.events
        .readThreadAfter(threadId, 0)
        .find((e) => e.type === 'provider-thread.reconciled')!;
      expect(reconciled.payload).toMatchObject({
        runOrdinal: 1,
        remainingTurnRefs: [firstTurn],
        missingTurnRefs: [],
        unexpectedTurnRefs: [],
      });
      expect(h.store.events.readThreadAfter(threadId, 0).filter((e) => e.type === 'runtime.warning')).toEqual([]);

      // Baton restarts before the next run: the fork it bound survives.
      const h2 = await restart(h);
      await run(h2, threadId, 'third');
      const third = model.messageRequests[2]!;
      expect(texts(third, 'user')).toEqual(['first', 'third']);
      expect(texts(third, 'assistant')).toEqual(['one']);
      expect(sessionOf(third)).toBe(forked);
      // The source session is as it was: both turns.
      expect(await sessionMessages(dirsOf(dataDir, threadId), source)).toHaveLength(4);

      // The fork kept the turns' uuids: a second rollback finds the run it drops.
      expect((await h2.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).ok).toBe(true);
      await h2.until(() => nativeThread(h2, threadId) !== forked);
      await run(h2, threadId, 'fourth');
      const fourth = model.messageRequests[3]!;
      expect(texts(fourth, 'user')).toEqual(['first', 'fourth']);
      expect(texts(fourth, 'assistant')).toEqual(['one']);
      expect(sessionOf(fourth)).toBe(nativeThread(h2, threadId));
    },
  );

  it(
    'a rollback that keeps none of the conversation replaces the provider thread: the next run starts a new session',
    { timeout: 90_000 },
    async () => {
      const { h, cwd, model } = await setup();
      model.enqueue({ kind: 'text', text: 'one' }, { kind: 'text', text: 'fresh' });
      const threadId = await h.thread({ threadId: 'thr_rollback_all', cwd });
      await run(h, threadId, 'first');
      const before = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
      expect((await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 0 })).ok).toBe(true);
      await h.until(() => h.store.projections.get('threads', threadId)!.activeProviderThreadId !== before);
      const two = await run(h, threadId, 'start over');
      expect(h.store.projections.get('runs', two)!.ordinal).toBe(1);
      const request = model.messageRequests[1]!;
      expect(texts(request, 'user')).toEqual(['start over']);
      expect(texts(request, 'assistant')).toEqual([]);
      expect(sessionOf(request)).not.toBe(sessionOf(model.messageRequests[0]!));
    },
  );

  it(
    "a fork at a turn carries the source's turns up to it; the source session goes on untouched",
    { timeout: 90_000 },
    async () => {
      const { h, cwd, dataDir, model } = await setup();
      model.enqueue(
        { kind: 'text', text: 'Noted: 42.' },
        { kind: 'text', text: 'Noted: 7.' },
        { kind: 'text', text: 'It was 42.' },
        { kind: 'text', text: 'Still here.' },
      );
      const source = await h.thread({ threadId: 'thr_source', cwd });
      const one = await run(h, source, 'remember 42');
      await run(h, source, 'remember 7');
      const sourceSession = nativeThread(h, source)!;
      const before = await sessionMessages(dirsOf(dataDir, source), sourceSession);
      const forked = await h.command({
        type: 'thread.fork',
        sourceThreadId: source,
        source: { type: 'run', threadId: source, runId: one },
        threadId: 'thr_fork',
      });
      expect(forked.ok).toBe(true);
      await run(h, 'thr_fork', 'which number?');
      const forkRequest = model.messageRequests[2]!;
      expect(texts(forkRequest, 'user')).toEqual(['remember 42', 'which number?']);
      expect(texts(forkRequest, 'assistant')).toEqual(['Noted: 42.']);
      const forkSession = nativeThread(h, 'thr_fork')!;
      expect(sessionOf(forkRequest)).toBe(forkSession);
      expect(forkSession).not.toBe(sourceSession);
      const resolved = h.store.events.readThreadAfter('thr_fork', 0).find((e) => e.type === 'thread.fork-resolved');
      expect(resolved?.payload).toMatchObject({ strategy: 'native_fork' });
      // The fork lives in its own thread's folders; the source's transcript is not written.
      expect(transcriptOf(dirsOf(dataDir, 'thr_fork'), forkSession)).not.toBeNull();
      expect(transcriptOf(dirsOf(dataDir, source), forkSession)).toBeNull();
      expect(await sessionMessages(dirsOf(dataDir, source), sourceSession)).toEqual(before);

      await run(h, source, 'and now?');
      const sourceRequest = model.messageRequests[3]!;
      expect(sessionOf(sourceRequest)).toBe(sourceSession);
      expect(texts(sourceRequest, 'user')).toEqual(['remember 42', 'remember 7', 'and now?']);
      expect(texts(sourceRequest, 'assistant')).toEqual(['Noted: 42.', 'Noted: 7.']);
    },
  );

  it(
    'a resume the agent refuses is a typed thread failure: the run goes on in a replacement seeded from Baton, which the next run resumes',
    { timeout: 90_000 },
    async () => {
      const { h, cwd, dataDir, model } = await setup();
      model.enqueue(
        { kind: 'text', text: 'Noted: 42.' },
        { kind: 'text', text: 'It was 42.' },
        { kind: 'text', text: 'Still here.' },
      );
      const threadId = await h.thread({ threadId: 'thr_lost', cwd });
      await run(h, threadId, 'remember 42');
      const lostSession = nativeThread(h, threadId)!;
      const failedProviderThread = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
      // The agent goes, and its transcript with it: resuming the session by id is refused.
      await providers.at(-1)!.adapter(threadId).stop('SIGKILL');
      expect(claudeAgents()).toEqual([]);
      rmSync(transcriptOf(dirsOf(dataDir, threadId), lostSession)!.path);

      const two = await h.send(threadId, 'what was it?');
      await h.until(() => status(h, two) === 'completed');
      const attempts = h.store.projections.get('runs', two)!.attempts.map((a) => `${a.reason}:${a.status}`);
      expect(attempts).toEqual(['initial:failed', 'provider_recovery:completed']);
      const failed = h.store.events
        .readThreadAfter(threadId, 0)
        .filter((e) => e.type === 'provider-thread.status-changed')
        .map((e) => e.payload)
        .find((p) => p.providerThreadId === failedProviderThread && p.to === 'error');
      expect(failed).toBeDefined();
      const replacement = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
      expect(replacement).not.toBe(failedProviderThread);
      const warnings = h.store.events
        .readThreadAfter(threadId, 0)
        .filter((e) => e.type === 'runtime.warning')
        .map((e) => JSON.stringify(e.payload));
      expect(warnings.some((w) => w.includes('No conversation found with session ID'))).toBe(true);

      // The replacement's first request: a new session, Baton's account of run 1, then the message.
      const seed = h.store.projections.list('turn_items', threadId).find((i) => i.data.contextSeed === true)!;
      expect(seed.text).toContain('remember 42');
      expect(seed.text).toContain('Noted: 42.');
      expect(model.messageRequests).toHaveLength(2);
      const seeded = model.messageRequests[1]!;
      expect(texts(seeded, 'user')).toEqual([`${seed.text}\n\nwhat was it?`]);
      const replacementSession = nativeThread(h, threadId)!;
      expect(sessionOf(seeded)).toBe(replacementSession);
      expect(replacementSession).not.toBe(lostSession);

      // The next run goes on in the replacement, resumed in a new agent process, with no reseed.
      await providers.at(-1)!.adapter(threadId).stop('SIGKILL');
      const three = await run(h, threadId, 'still there?');
      expect(h.store.projections.get('runs', three)!.attempts.map((a) => a.reason)).toEqual(['initial']);
      const next = model.messageRequests[2]!;
      expect(sessionOf(next)).toBe(replacementSession);
      expect(texts(next, 'user')).toEqual([`${seed.text}\n\nwhat was it?`, 'still there?']);
    },
  );
});
