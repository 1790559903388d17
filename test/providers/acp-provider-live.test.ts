import { describe, expect, it } from 'vitest';
import { useLiveAcp } from '../support/live-acp.js';
import type { Harness } from '../support/runtime.js';

/**
 * Baton's ACP provider with the two built-in real agents, offline: claude-agent-acp against
 * the scripted Messages-API model, codex-acp against the scripted Responses-API model.
 */
const acp = useLiveAcp();

const status = (h: Harness, runId: string) => h.store.projections.get('runs', runId)?.status;
const types = (h: Harness, threadId: string) => h.store.events.readThreadAfter(threadId, 0).map((e) => e.type);

describe('the ACP provider, live', () => {
  it(
    'streams a reply from claude-agent-acp and binds its session to the provider thread',
    { timeout: 60_000 },
    async () => {
      const { h, cwd, messages } = await acp.setup();
      messages.enqueue({
        kind: 'text',
        text: 'Hello from Claude over ACP.',
        chunks: ['Hello ', 'from Claude ', 'over ACP.'],
      });
      const threadId = await h.thread({
        threadId: 'thr_acp_claude',
        cwd,
        provider: 'acp',
        acpAgent: 'claude-agent-acp',
      });
      const run = await h.send(threadId, 'say hello');
      await h.until(() => status(h, run) === 'completed');
      const deltas = h.published.filter((e) => e.type === 'message.delta');
      expect(deltas.length).toBeGreaterThanOrEqual(3);
      expect(h.store.projections.list('messages', threadId).at(-1)?.text).toBe('Hello from Claude over ACP.');
      const providerThreadId = h.run(run).attempts[0]!.providerThreadId!;
      expect(h.runtime.providerHost('acp').nativeThreadRef(providerThreadId)).toMatch(/^[0-9a-f-]{36}$/);
      expect(types(h, threadId)).toContain('run.terminal');
    },
  );

  it('streams a reply and reasoning from codex-acp', { timeout: 60_000 }, async () => {
    const { h, cwd, responses } = await acp.setup();
    responses.enqueue({ kind: 'text', text: 'Hello from Codex over ACP.', reasoning: ['Thinking it over'] });
    const threadId = await h.thread({ threadId: 'thr_acp_codex', cwd, provider: 'acp', acpAgent: 'codex-acp' });
    const run = await h.send(threadId, 'say hello');
    await h.until(() => status(h, run) === 'completed');
    expect(h.published.filter((e) => e.type === 'message.delta').length).toBeGreaterThanOrEqual(2);
    // The whole reply, and nothing else (no "model metadata not found" notice as agent text).
    expect(h.store.projections.list('messages', threadId).map((m) => m.text)).toEqual([
      'say hello',
      'Hello from Codex over ACP.',
    ]);
    expect(types(h, threadId)).toContain('node.output');
  });
});
