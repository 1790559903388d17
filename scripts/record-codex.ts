import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codexBinaryPath } from '../src/providers/codex/codex-binary.js';
import { ScriptedModelServer } from '../src/providers/model/scripted-model-server.js';
import { RecordingChannel, writeTranscript, type TranscriptEntry } from '../src/providers/transport/transcript.js';
import { codexScenarios } from '../test/providers/codex-scenarios.js';
import { runCodexScenario as runScenario } from '../test/providers/codex-scenario-channels.js';
import { dataDirOf } from '../test/support/scenario-kit/agent-providers.js';
import { transcriptFile } from '../test/support/scenario-kit/recorded-processes.js';

/**
 * `npm run record:codex -- --scenario NAME` (or `--all`): runs a scenario against the real
 * Codex binary and the scripted model, checks it, and writes what Codex said and was told
 * to test/fixtures/transcripts/codex/NAME.ndjson for the replay tests.
 */
const args = process.argv.slice(2);
const wanted: string[] = args.includes('--all')
  ? codexScenarios.map((s) => s.name)
  : [args[args.indexOf('--scenario') + 1] ?? ''];
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
  let sessions: TranscriptEntry[][] = [];
  try {
    const done = await runScenario({
      scenario,
      cwd,
      dir: data,
      checkpointsRoot: join(data, 'checkpoints'),
      live: true,
      modelBaseUrl: model.baseUrl,
      channelFor: (_thread, _session, spawn) => {
        const recording = new RecordingChannel(spawn(), { cwd, dataDir: dataDirOf(data) });
        recordings.push(recording);
        return recording;
      },
      modelAsked: (n) => model.waitForRequests(n),
      kill: (provider, threadId) => process.kill(provider.adapter(threadId).pid!, 'SIGKILL'),
    });
    // What each session said during the scenario (the teardown below is not part of it).
    sessions = recordings.map((r) => [...r.entries]);
    done.providers.forEach((p) => p.stopAll('SIGKILL'));
    done.stores.forEach((s) => s.close());
  } finally {
    await model.stop();
  }
  // One transcript per Codex session the scenario started, in the order they started.
  sessions.forEach((entries, i) => {
    writeTranscript(join(outDir, transcriptFile(name, i, sessions.length)), {
      header: {
        kind: 'header',
        provider: 'codex',
        protocol: 'app-server',
        version,
        scenario: name,
        metadata: {
          recordedWith: 'npm run record:codex',
          session: i + 1,
          sessions: sessions.length,
          modelTurns: scenario.model,
          vars: ['cwd', 'dataDir'],
        },
      },
      entries,
    });
  });
  rmSync(data, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
  console.log(`recorded ${name}: ${sessions.map((e) => e.length).join(' + ')} entries`);
}
