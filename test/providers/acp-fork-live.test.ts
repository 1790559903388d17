import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeSessionDirs } from '../../src/providers/claude/claude-environment.js';
import { transcriptOf } from '../../src/providers/claude/claude-sessions.js';
import { useLiveAcp } from '../support/live-acp.js';
import { sessionOf, texts, userTexts } from '../support/messages-request.js';
import type { Harness } from '../support/runtime.js';

/**
 * A native fork of a claude-agent-acp thread from an earlier run than the source's last: the
 * fork's first model request carries the source's turns up to that run and none after, and
 * neither thread's later requests carry the other's. (The fork of the last run is the shared
 * scenario fork_native, live and replayed.)
 */
const acp = useLiveAcp();

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;
const nativeThread = (h: Harness, threadId: string) => {
  const providerThreadId = h.store.projections.get('threads', threadId)!.activeProviderThreadId!;
  return h.runtime.providerHost('acp').nativeThreadRef(providerThreadId);
};
const dirsOf = (dataDir: string, threadId: string) =>
  claudeSessionDirs(join(dataDir, 'acp', 'claude-agent-acp'), threadId);

describe('ACP fork, live', () => {
  it(
    'claude-agent-acp: a fork from an earlier run starts from that run, in its own session and folders',
    { timeout: 90_000 },
    async () => {
      const { h, cwd, dataDir, messages } = await acp.setup({
        claude: (request) => ({ kind: 'text', text: `Answer to: ${userTexts(request).at(-1)}` }),
      });
      const source = await h.thread({ threadId: 'thr_src', cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
      const one = await h.send(source, 'remember the number 42');
      await h.until(() => h.ended(one));
      const two = await h.send(source, 'now remember 43 instead');
      await h.until(() => h.ended(two));
      expect([status(h, one), status(h, two)]).toEqual(['completed', 'completed']);

      const forked = await h.command({
        type: 'thread.fork',
        sourceThreadId: source,
        source: { type: 'run', threadId: source, runId: one },
        threadId: 'thr_fork',
      });
      expect(forked.ok, JSON.stringify(forked)).toBe(true);
      const three = await h.send('thr_fork', 'what was the number?');
      await h.until(() => h.ended(three));
      expect(status(h, three)).toBe('completed');
      const resolved = h.store.events.readThreadAfter('thr_fork', 0).find((e) => e.type === 'thread.fork-resolved');
      expect((resolved?.payload as { strategy?: string }).strategy).toBe('native_fork');

      // The fork's request: the source's first turn, then the fork's own text; nothing of run two.
      const forkRequest = messages.messageRequests.at(-1)!;
      expect(userTexts(forkRequest)).toEqual(['remember the number 42', 'what was the number?']);
      expect(texts(forkRequest, 'assistant')).toEqual(['Answer to: remember the number 42']);

      // The source goes on where it was, with nothing of the fork's.
      const four = await h.send(source, 'and which one now?');
      await h.until(() => h.ended(four));
      const sourceRequest = messages.messageRequests.at(-1)!;
      expect(userTexts(sourceRequest)).toEqual([
        'remember the number 42',
        'now remember 43 instead',
        'and which one now?',
      ]);
      expect(h.store.projections.list('messages', 'thr_fork').at(-1)?.text).toBe('Answer to: what was the number?');

      // The fork is a session of its own, written in the fork thread's agent folder only.
      const sourceSession = nativeThread(h, source);
      const forkSession = nativeThread(h, 'thr_fork')!;
      expect(forkSession).toBeTruthy();
      expect(forkSession).not.toBe(sourceSession);
      expect(sessionOf(forkRequest)).toBe(forkSession);
      expect(sessionOf(sourceRequest)).toBe(sourceSession);
      expect(transcriptOf(dirsOf(dataDir, 'thr_fork'), forkSession)).not.toBeNull();
      expect(transcriptOf(dirsOf(dataDir, source), forkSession)).toBeNull();
    },
  );
});
