import { expect, it } from 'vitest';
import { useRuntime } from '../support/runtime.js';

/** The agent refuses the interrupt and the steer (as Codex refused an interrupt before `turn/started`). */
const open = useRuntime({
  handlers: () => ({
    'provider.turn.interrupt': (effect, worker) =>
      worker.fail(effect, { code: 'provider_error', message: 'no active turn to interrupt' }),
    'provider.turn.steer': (effect, worker) =>
      worker.fail(effect, { code: 'provider_error', message: 'turn is not steerable' }),
  }),
});

const warnings = (h: ReturnType<typeof open>, runId: string) =>
  h.published.flatMap((e) => (e.type === 'runtime.warning' && e.payload.runId === runId ? [e.payload.message] : []));

it('an interrupt the provider refused is a warning on its run, which goes on', async () => {
  const h = open();
  const threadId = await h.thread();
  const { runId } = await h.running(threadId);
  expect(await h.command({ type: 'run.interrupt', runId })).toMatchObject({ ok: true });
  await h.until(() => warnings(h, runId).length > 0);
  expect(warnings(h, runId)).toEqual(['the interrupt did not reach the provider: no active turn to interrupt']);
  expect(h.ended(runId)).toBe(false);
  expect(h.store.outbox.get(h.effect('provider.turn.interrupt', threadId).id)?.status).toBe('failed');
});

it('a steering message the provider refused is a warning on its run', async () => {
  const h = open();
  const threadId = await h.thread();
  const { runId } = await h.running(threadId);
  await h.send(threadId, 'and also this', { dispatchMode: 'steer_active' });
  await h.until(() => warnings(h, runId).length > 0);
  expect(warnings(h, runId)).toEqual(['the steering message did not reach the provider: turn is not steerable']);
});
