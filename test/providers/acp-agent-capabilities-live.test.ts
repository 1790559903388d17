import { describe, expect, it } from 'vitest';
import { acpBaseCapabilities } from '../../src/providers/acp/acp-capabilities.js';
import { useLiveAcp } from '../support/live-acp.js';
import type { Harness } from '../support/runtime.js';

/**
 * Each ACP agent's own declaration reaches the runtime's policy: once a thread's agent has
 * answered `initialize` (its first run), the runtime reads that agent's declaration for
 * every thread on it, also after a restart; before any answer, the base one. Both built-in
 * agents, real, offline.
 */
const acp = useLiveAcp();

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;

describe("the runtime reads each ACP agent's declaration, live", () => {
  it(
    "after their first runs, codex-acp's threads declare that a decline ends the turn and claude-agent-acp's that it carries on",
    { timeout: 90_000 },
    async () => {
      const { h, cwd, messages, responses } = await acp.setup();
      const claude = await h.thread({ cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
      const codex = await h.thread({ cwd, provider: 'acp', acpAgent: 'codex-acp' });
      // No agent has answered yet: both read the base declaration.
      expect(h.runtime.threadCapabilities(claude)).toEqual(acpBaseCapabilities);
      expect(h.runtime.threadCapabilities(codex)).toEqual(acpBaseCapabilities);

      responses.enqueue({ kind: 'text', text: 'Codex here.' });
      const codexRun = await h.send(codex, 'hello');
      await h.until(() => status(h, codexRun) === 'completed');
      const codexCaps = h.runtime.threadCapabilities(codex);
      expect(codexCaps.version).toBe('acp/codex-acp@0.16.0');
      expect(codexCaps.approvals.declineContinuesTurn).toBe(false);
      // What codex-acp's initialize says, not assumed: it resumes sessions by id.
      expect(codexCaps.threads.exposesNativeThreadId).toBe(true);
      // claude-agent-acp has not answered yet: its threads still read the base.
      expect(h.runtime.threadCapabilities(claude)).toEqual(acpBaseCapabilities);

      messages.enqueue({ kind: 'text', text: 'Claude here.' });
      const claudeRun = await h.send(claude, 'hello');
      await h.until(() => status(h, claudeRun) === 'completed');
      const claudeCaps = h.runtime.threadCapabilities(claude);
      expect(claudeCaps.version).toMatch(/^acp\/@zed-industries\/claude-agent-acp@/);
      expect(claudeCaps.approvals.declineContinuesTurn).toBe(true);
      expect(claudeCaps.threads.exposesNativeThreadId).toBe(true);

      // Per agent, not per thread: a new codex-acp thread reads codex-acp's declaration before its own first run.
      const another = await h.thread({ cwd, provider: 'acp', acpAgent: 'codex-acp' });
      expect(h.runtime.threadCapabilities(another)).toEqual(codexCaps);
    },
  );

  it(
    "a restarted Baton keeps each agent's last negotiated declaration, so a fork after the restart is native",
    { timeout: 90_000 },
    async () => {
      const { h, cwd, messages } = await acp.setup();
      const source = await h.thread({ cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
      messages.enqueue({ kind: 'text', text: 'Remembered: 42.' });
      const runId = await h.send(source, 'remember the number 42');
      await h.until(() => status(h, runId) === 'completed');
      const negotiated = h.runtime.threadCapabilities(source);
      expect(negotiated.threads.canForkFromTurn).toBe(true);

      const h2 = await acp.restart(h);
      // No agent has run in this Baton yet: the declaration is the one negotiated before the restart.
      expect(h2.runtime.threadCapabilities(source)).toEqual(negotiated);
      const fork = await h2.command({
        type: 'thread.fork',
        sourceThreadId: source,
        source: { type: 'run', threadId: source, runId },
        threadId: 'thr_after_restart',
      });
      expect(fork.ok).toBe(true);
      messages.enqueue({ kind: 'text', text: 'It was 42.' });
      const forkRun = await h2.send('thr_after_restart', 'what was the number?');
      await h2.until(() => status(h2, forkRun) === 'completed');
      const resolved = h2.store.events
        .readThreadAfter('thr_after_restart', 0)
        .find((e) => e.type === 'thread.fork-resolved');
      expect(resolved?.payload).toMatchObject({ strategy: 'native_fork' });
      // The fork's transfer needed no text: resolved natively, no handoff.
      const transfer = h2.store.projections.list('context_transfers', 'thr_after_restart');
      expect(transfer.map((t) => [t.kind, t.status, t.handoffId])).toEqual([['fork', 'resolved_native', null]]);
    },
  );
});
