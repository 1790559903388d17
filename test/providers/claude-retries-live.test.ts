import { describe, expect, it } from 'vitest';
import { useLiveClaude } from '../support/live-claude.js';

/**
 * The agent's API retries are said on the run: a model request that fails with a retryable
 * error is a warning on the run (the agent's `system/api_retry`), and the run completes once
 * the retry is answered. Live: the real agent, a scripted model that answers 500 once.
 */
const claude = useLiveClaude();

describe('Claude API retries, live', () => {
  it('a retried model request is a warning on its run, and the run completes with the retry', async () => {
    const { h, cwd, model } = await claude.setup();
    model.enqueue(
      { kind: 'error', status: 500, message: 'the scripted model is down for a moment', shouldRetry: true },
      { kind: 'text', text: 'Back in business.' },
    );
    const threadId = await h.thread({ cwd });
    const runId = await h.send(threadId, 'are you there?');
    await h.until(() => h.store.projections.get('runs', runId)?.status === 'completed', 30_000);
    const warnings = h.published.filter((e) => e.type === 'runtime.warning');
    expect(warnings.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        runId,
        message: expect.stringMatching(/^Claude's model request failed \(HTTP 500\); retry 1 of \d+ in \d+ ms$/),
      }),
    ]);
    expect(model.messageRequests).toHaveLength(2);
    expect(h.store.projections.list('messages', threadId).at(-1)?.text).toBe('Back in business.');
  }, 60_000);
});
