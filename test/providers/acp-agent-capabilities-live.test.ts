import { describe, expect, it } from 'vitest';
import { acpBaseCapabilities } from '../../src/providers/acp/acp-capabilities.js';
import { useLiveAcp } from '../support/live-acp.js';
import type { Harness } from '../support/runtime.js';

/**
 * Each ACP agent's own declaration reaches the runtime's policy: once a thread's agent has
 * answered `initialize` (its first run), the runtime reads that agent's declaration for
 * every thread on it; before, the base one. Both built-in agents, real, offline.
 */
const acp = useLiveAcp();

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;

describe("the runtime reads each ACP agent's declaration, live", () => {
  it(
    "after their first runs, codex-acp's threads declare no command approval and claude-agent-acp's do",
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
      expect(codexCaps.approvals.supportsCommandApproval).toBe(false);
      // What codex-acp's initialize says, not assumed: it resumes sessions by id.
      expect(codexCaps.threads.exposesNativeThreadId).toBe(true);
      // claude-agent-acp has not answered yet: its threads still read the base.
      expect(h.runtime.threadCapabilities(claude)).toEqual(acpBaseCapabilities);

      messages.enqueue({ kind: 'text', text: 'Claude here.' });
      const claudeRun = await h.send(claude, 'hello');
      await h.until(() => status(h, claudeRun) === 'completed');
      const claudeCaps = h.runtime.threadCapabilities(claude);
      expect(claudeCaps.version).toMatch(/^acp\/@zed-industries\/claude-agent-acp@/);
      expect(claudeCaps.approvals.supportsCommandApproval).toBe(true);
      expect(claudeCaps.threads.exposesNativeThreadId).toBe(true);

      // Per agent, not per thread: a new codex-acp thread reads codex-acp's declaration before its own first run.
      const another = await h.thread({ cwd, provider: 'acp', acpAgent: 'codex-acp' });
      expect(h.runtime.threadCapabilities(another)).toEqual(codexCaps);
    },
  );
});
