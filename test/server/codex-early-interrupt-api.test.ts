import { describe, expect, it } from 'vitest';
import { RunId } from '../../src/domain/ids.js';
import { useApiBatons } from '../support/api-batons.js';
import { startScriptedModels } from '../support/scripted-models.js';
import { ok } from '../support/thread-client.js';

/**
 * An interrupt sent the moment a Codex run starts, before Codex holds its turn as started:
 * Codex answers `turn/start` with the turn's id about 60 ms before it counts the turn as
 * active, and refuses a `turn/interrupt` in between ("no active turn to interrupt",
 * measured). Baton waits for `turn/started` before it asks, so the run ends interrupted at
 * once, not failed when the hanging model stream times out 10 s later.
 */
const token = 'early-interrupt-token-0123456789';
const api = useApiBatons({ token, prefix: 'baton-early-int', agentComms: ['codex'] });

describe('an interrupt as soon as a Codex run starts', () => {
  it("ends the run interrupted by Codex's answer, acknowledged first, not by the stream's timeout or a kill", async () => {
    const models = await startScriptedModels(api.onCleanup);
    const app = await api.baton(models.config);
    const t = await api.create(app.url, { cwd: api.workspace(), provider: 'codex' });
    models.responses.enqueue({ kind: 'hang', text: 'Working' });
    const runId = await t.send('take your time');
    await t.next((e) => (e.type === 'run.started' && e.payload.runId === runId ? e : undefined), 'the run to start');
    ok(await t.client.command('run.interrupt', { runId: RunId.parse(runId) }));
    // A lost interrupt would end the run failed (Codex's stream-idle timeout, 10 s), or interrupted
    // with a timeout error (Baton killing a Codex that never started the turn): neither passes.
    // The wait is generous because a loaded machine can take seconds to start Codex at all.
    const end = await t.next(
      (e) => (e.type === 'run.terminal' && e.payload.runId === runId ? e.payload : undefined),
      'the run to end',
      30_000,
    );
    expect(end).toMatchObject({ status: 'interrupted', error: null });
    expect(t.events.some((e) => e.type === 'run.interrupt-acknowledged')).toBe(true);
  }, 60_000);
});
