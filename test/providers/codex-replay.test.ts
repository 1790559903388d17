import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { ReplayChannel, readTranscript, type TranscriptEntry } from '../../src/providers/transport/transcript.js';
import type { Harness } from '../support/runtime.js';
import type { Store } from '../../src/persistence/store.js';
import { TempFolders, tempDir } from '../support/temp.js';
import { codexScenarios } from './codex-scenarios.js';
import { dataDirOf, runScenario } from './scenario-runner.js';

/**
 * The same scenarios as the live Codex tests, from transcripts recorded off the real binary
 * (`npm run record:codex`). Only the provider process is replaced: Baton's adapter,
 * normalizer, runtime, store and projections are the real ones, and every frame Baton
 * sends is checked against the recording.
 */
const dir = fileURLToPath(new URL('../fixtures/transcripts/codex/', import.meta.url));
const transcripts = readdirSync(dir).filter((f) => f.endsWith('.ndjson')).map((f) => readTranscript(join(dir, f)));

const data = tempDir('baton-replay-');
afterAll(data.cleanup);
let replays: ReplayChannel[] = [];
const finished: { providers: CodexProvider[]; stores: Store[] }[] = [];
let entriesFor: (entries: TranscriptEntry[]) => TranscriptEntry[] = (e) => e;
/** The recorded sessions of the scenario being replayed, in the order they started. */
let current: TranscriptEntry[][] = [];

afterEach(() => {
  for (const { providers, stores } of finished.splice(0)) {
    providers.forEach((p) => p.stopAll());
    stores.forEach((s) => s.close());
  }
  replays = [];
  entriesFor = (e) => e;
});

const folders = new TempFolders();
afterAll(() => folders.removeAll());

function workspace(): string {
  return realpathSync(folders.make('baton-replay-ws-'));
}

async function replay(name: string): Promise<{ h: Harness; dataDir: string }> {
  const scenario = codexScenarios.find((s) => s.name === name)!;
  const sessions = transcripts.filter((t) => t.header.scenario === name).sort((a, b) => Number(a.header.metadata.session ?? 1) - Number(b.header.metadata.session ?? 1));
  if (sessions.length === 0) throw new Error(`no transcript for ${name}: run npm run record:codex -- --scenario ${name}`);
  current = sessions.map((t) => t.entries);
  const cwd = workspace();
  const run = { dir: folders.make('baton-replay-run-') };
  try {
    const done = await runScenario({
      scenario,
      cwd,
      dir: run.dir,
      checkpointsRoot: join(data.dir, 'checkpoints'),
      live: false,
      modelBaseUrl: 'http://127.0.0.1:9/v1',
      channelFor: () => {
        const session = current[replays.length];
        if (!session) throw new Error(`the scenario started more Codex sessions than were recorded (${current.length})`);
        const channel = new ReplayChannel(entriesFor(session), { cwd, dataDir: dataDirOf(run.dir) });
        replays.push(channel);
        return channel;
      },
      modelAsked: async () => undefined,
      kill: () => replays.at(-1)!.terminate(),
    });
    finished.push(done);
    return { h: done.h, dataDir: dataDirOf(run.dir) };
  } catch (error) {
    // Say where the replay stood: the frames Baton sent that differ, and what it still expects.
    const state = replays.map((r) => ({ mismatches: r.mismatches, next: r.remaining.slice(0, 2) }));
    throw new Error(`${(error as Error).message}\nreplay: ${JSON.stringify(state, null, 1).slice(0, 4000)}`);
  }
}

describe('Codex scenarios replayed from recorded transcripts', () => {
  it('has a transcript for every scenario, each recorded from the pinned Codex', () => {
    expect([...new Set(transcripts.map((t) => t.header.scenario))].sort()).toEqual(codexScenarios.map((s) => s.name).sort());
    expect(new Set(transcripts.map((t) => t.header.version))).toEqual(new Set(['0.169.0']));
  });

  it.each(codexScenarios.map((s) => s.name))('%s', async (name) => {
    await replay(name);
    expect(replays).toHaveLength(current.length);
    for (const r of replays) {
      expect(r.mismatches).toEqual([]);
      expect(r.remaining.filter((e) => e.kind === 'expect_outbound')).toEqual([]);
    }
  });

  it('garbled, truncated and unknown frames are logged and counted, and the run is not harmed', async () => {
    // The recorded transcript is not edited: bad frames are inserted in memory, after turn/start.
    entriesFor = (entries) => {
      const at = entries.findIndex((e) => e.kind === 'expect_outbound' && (e.frame as { method?: string }).method === 'turn/start') + 1;
      const bad: TranscriptEntry[] = [
        { kind: 'emit_inbound', raw: '{"method":"item/agentMessage/delta","params":{"thr' },
        { kind: 'emit_inbound', raw: 'this is not json at all' },
        { kind: 'emit_inbound', frame: { method: 'totally/unknown', params: { x: 1 } } },
        { kind: 'emit_inbound', frame: { id: 4242, result: {} } },
        { kind: 'emit_inbound', frame: { neither: 'request nor response' } },
      ];
      return [...entries.slice(0, at), ...bad, ...entries.slice(at)];
    };
    const { h, dataDir } = await replay('simple');
    expect(replays[0]!.mismatches).toEqual([]);
    const problems = finished[0]!.providers[0]!.adapter('thr_simple').frameProblems;
    expect(problems).toEqual({ unreadable: 4, unknown: 1 });
    const warnings = h.store.events.readThreadAfter('thr_simple', 0).filter((e) => e.type === 'runtime.warning');
    expect(warnings.length).toBe(4);
    const frames = join(dataDir, 'codex', 'thr_simple', 'frames');
    const log = readdirSync(frames).map((f) => readFileSync(join(frames, f), 'utf8')).join('');
    expect(log.split('\n').filter((l) => l.includes('"problem"')).length).toBe(4);
    expect(log).toContain('totally/unknown');
  });
});
