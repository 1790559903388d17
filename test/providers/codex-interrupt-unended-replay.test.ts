import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DomainEvent } from '../../src/domain/events.js';
import { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { ReplayChannel, readTranscript } from '../../src/providers/transport/transcript.js';
import { useRuntime } from '../support/runtime.js';
import { TempFolders } from '../support/temp.js';

/**
 * A Codex that acknowledges an interrupt and then never ends the turn: the real Codex
 * cannot be made to do that on cue, so the recorded `turn_interrupt` session is replayed
 * without its `turn/completed`. Only the process is replaced; the adapter, normalizer,
 * runtime and store are the real ones.
 */
const recorded = readTranscript(
  fileURLToPath(new URL('../fixtures/transcripts/codex/turn_interrupt.ndjson', import.meta.url)),
);
const withoutTheEnd = recorded.entries.filter(
  (e) => !(e.kind === 'emit_inbound' && (e.frame as { method?: string } | undefined)?.method === 'turn/completed'),
);
const folders = new TempFolders();
const cwd = realpathSync(folders.make('baton-unended-ws-'));
const dataDir = folders.make('baton-unended-data-');
const replays: ReplayChannel[] = [];
const providers: CodexProvider[] = [];
const open = useRuntime({
  handlers: (runtime) => {
    const provider = new CodexProvider(runtime, {
      endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'gpt-5.1-codex' },
      dataDir,
      interruptTimeoutMs: 500,
      channelFor: () => {
        const channel = new ReplayChannel(withoutTheEnd, { cwd, dataDir });
        replays.push(channel);
        return channel;
      },
    });
    providers.push(provider);
    return provider.handlers();
  },
});
afterEach(() => providers.splice(0).forEach((p) => p.stopAll()));
afterAll(() => folders.removeAll());

describe('Codex interrupt escalation, replayed', () => {
  it("an interrupt acknowledged but never followed by the turn's end kills the session; the run ends interrupted", async () => {
    expect(withoutTheEnd).toHaveLength(recorded.entries.length - 1);
    const h = open();
    const threadId = await h.thread({ threadId: 'thr_interrupt', cwd });
    const ack = (await h.command({ type: 'thread.message.send', threadId, text: 'take your time' })) as {
      result: { runId: string };
    };
    const runId = ack.result.runId;
    const status = () => h.store.projections.get('runs', runId)!.status;
    await h.until(() => status() === 'running');
    expect(await h.command({ type: 'run.interrupt', runId })).toMatchObject({ ok: true });
    await h.until(() => status() === 'interrupted', 10_000);

    const events = h.store.events.readThreadAfter(threadId, 0);
    const terminal = events.find((e): e is DomainEvent => e.type === 'run.terminal')!.payload;
    expect(terminal).toMatchObject({
      status: 'interrupted',
      error: {
        code: 'timeout',
        message: 'Codex acknowledged the interrupt but did not end the turn within 500 ms; its process was killed',
      },
    });
    const types = events.map((e) => e.type);
    expect(types.indexOf('run.interrupt-acknowledged')).toBeGreaterThan(-1);
    expect(types.indexOf('run.interrupt-acknowledged')).toBeLessThan(types.indexOf('run.terminal'));
    expect(replays[0]!.mismatches).toEqual([]);
    expect(providers[0]!.adapter(threadId).running).toBe(false);
  });
});
