import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheckpointStore } from '../src/checkpoints/checkpoint-store.js';
import { ManualClock } from '../src/domain/sources.js';
import type { Store } from '../src/persistence/store.js';
import { codexBinaryPath } from '../src/providers/codex/codex-binary.js';
import { CodexProvider } from '../src/providers/codex/codex-provider.js';
import { ScriptedModelServer } from '../src/providers/model/scripted-model-server.js';
import { RecordingChannel, writeTranscript, type TranscriptEntry } from '../src/providers/transport/transcript.js';
import { withoutNativeSteering } from '../test/providers/codex-scenarios.js';
import { codexScenarios } from '../test/providers/codex-scenarios.js';
import { createHarness } from '../test/support/runtime.js';

/**
 * `npm run record:codex -- --scenario NAME` (or `--all`): runs a scenario against the real
 * Codex binary and the scripted model, checks it, and writes what Codex said and was told
 * to test/fixtures/transcripts/codex/NAME.ndjson for the replay tests.
 */
const args = process.argv.slice(2);
const wanted: string[] = args.includes('--all') ? codexScenarios.map((s) => s.name) : [args[args.indexOf('--scenario') + 1] ?? ''];
const outDir = fileURLToPath(new URL('../test/fixtures/transcripts/codex/', import.meta.url));
const version = execFileSync(codexBinaryPath(), ['--version']).toString().trim().split(' ').at(-1)!;

for (const name of wanted) {
  const scenario = codexScenarios.find((s) => s.name === name);
  if (!scenario) throw new Error(`no scenario ${name}; known: ${codexScenarios.map((s) => s.name).join(', ')}`);
  const model = await new ScriptedModelServer().start();
  model.enqueue(...scenario.model);
  const data = mkdtempSync(join(tmpdir(), 'baton-record-'));
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'baton-record-ws-')));
  const recordings: RecordingChannel[] = [];
  const providers: CodexProvider[] = [];
  const stores: Store[] = [];
  const h = createHarness(
    {
      ...(scenario.withoutNativeSteering ? { capabilities: withoutNativeSteering } : {}),
      checkpoints: new CheckpointStore({ root: join(data, 'checkpoints') }),
      handlers: (runtime) => {
        const provider = new CodexProvider(runtime, {
          endpoint: { baseUrl: model.baseUrl, model: 'gpt-5.1-codex', streamIdleTimeoutMs: 5_000 },
          dataDir: data,
          channelFor: (_thread, _session, spawn) => {
            const recording = new RecordingChannel(spawn(), { cwd, dataDir: data });
            recordings.push(recording);
            return recording;
          },
        });
        providers.push(provider);
        return provider.handlers();
      },
    },
    join(data, 'baton.sqlite'),
    'a',
    new ManualClock(),
    (store) => stores.push(store),
  );
  let sessions: TranscriptEntry[][] = [];
  try {
    await scenario.drive({
      h,
      cwd,
      modelAsked: (n) => model.waitForRequests(n),
      kill: (threadId) => process.kill(providers.at(-1)!.adapter(threadId).pid!, 'SIGKILL'),
      restart: async () => {
        providers.forEach((p) => p.stopAll('SIGKILL'));
        await h.runtime.settle();
        return h.restart();
      },
    });
    // What each session said during the scenario (the teardown below is not part of it).
    sessions = recordings.map((r) => [...r.entries]);
  } finally {
    providers.forEach((p) => p.stopAll('SIGKILL'));
    stores.forEach((s) => s.close());
    await model.stop();
  }
  // One transcript per Codex session the scenario started, in the order they started.
  sessions.forEach((entries, i) => {
    const file = sessions.length === 1 ? `${name}.ndjson` : `${name}.${i + 1}.ndjson`;
    writeTranscript(join(outDir, file), {
      header: {
        kind: 'header', provider: 'codex', protocol: 'app-server', version, scenario: name,
        metadata: { recordedWith: 'npm run record:codex', session: i + 1, sessions: sessions.length, modelTurns: scenario.model, vars: ['cwd', 'dataDir'] },
      },
      entries,
    });
  });
  rmSync(data, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
  console.log(`recorded ${name}: ${sessions.map((e) => e.length).join(' + ')} entries`);
}
