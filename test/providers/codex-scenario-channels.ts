import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import type { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import type { LineChannel } from '../../src/providers/transport/line-channel.js';
import {
  RecordingChannel,
  ReplayChannel,
  writeTranscript,
  type Transcript,
  type TranscriptEntry,
} from '../../src/providers/transport/transcript.js';
import type { Harness } from '../support/runtime.js';
import type { Store } from '../../src/persistence/store.js';
import { dataDirOf, killAgent, runProviders, type GoneSession } from '../support/scenario-kit/agent-providers.js';
import type { ChannelSession, RunPlace, ScenarioChannel } from '../support/scenario-kit/channels.js';
import { checkReplaysDone, describeReplays, transcriptFile } from '../support/scenario-kit/recorded-processes.js';
import { runScenario } from '../support/scenario-kit/runner.js';
import type { ProviderScenario } from '../support/scenario-kit/scenario.js';
import { codexModel, type CodexScenario } from './codex-scenarios.js';

/** Codex's channels into the scenario kit: live, recording and replay. */

/** One Codex run of a scenario, however the Codex process is provided. */
export interface CodexRun extends RunPlace {
  scenario: Pick<CodexScenario, 'mcpServers' | 'adjustCapabilities'>;
  live: boolean;
  modelBaseUrl: string;
  /** Replays and recordings give their channels; live runs spawn the binary. */
  channelFor?: (threadId: string, sessionId: string, spawn: () => LineChannel) => LineChannel;
  modelAsked(n: number): Promise<void>;
  /** How the scenario's kill is carried out: a real signal, or a replayed exit. */
  kill(provider: CodexProvider, threadId: string): void;
}

export interface CodexSession extends GoneSession {
  /** Every CodexProvider the run made (a restart makes another). */
  providers: CodexProvider[];
}

/** Wires Codex into a scenario run's Baton (its data, CODEX_HOME and frame logs, in `dataDirOf(run.dir)`). */
export function codexSession(run: CodexRun): CodexSession {
  const made = runProviders<CodexProvider>('Codex');
  const adjust = run.scenario.adjustCapabilities;
  return {
    providers: made.providers,
    live: run.live,
    capabilities: adjust ? adjust(codexCapabilities) : codexCapabilities,
    harness: {
      ...(adjust ? { capabilities: () => adjust(codexCapabilities) } : {}),
      checkpoints: new CheckpointStore({ root: run.checkpointsRoot }),
      handlers: (runtime) => {
        const provider = new CodexProvider(runtime, {
          endpoint: {
            baseUrl: run.modelBaseUrl,
            model: 'gpt-5.1-codex',
            streamIdleTimeoutMs: 5_000,
            ...(run.scenario.mcpServers ? { mcpServers: run.scenario.mcpServers } : {}),
          },
          dataDir: dataDirOf(run.dir),
          ...(run.channelFor ? { channelFor: run.channelFor } : {}),
        });
        made.providers.push(provider);
        return provider.handlers();
      },
    },
    modelAsked: (n) => run.modelAsked(n),
    kill: (threadId) => run.kill(made.latest(threadId), threadId),
    stop: made.stop,
    gone: made.gone,
  };
}

/** Runs a scenario in Codex's terms (the live tests with scenarios of their own use this). */
export async function runCodexScenario(
  run: CodexRun & { scenario: CodexScenario },
): Promise<{ h: Harness; providers: CodexProvider[]; stores: Store[] }> {
  const session = codexSession(run);
  const { h, stores } = await runScenario(run.scenario.drive, session, run);
  return { h, providers: session.providers, stores };
}

const killProcess = killAgent('Codex');

/** The real `codex app-server` against the scripted model. */
export function codexLiveChannel(model: ScriptedModelServer): ScenarioChannel {
  return {
    kind: 'live',
    open(scenario, place) {
      model.enqueue(...codexModel(scenario.model));
      return codexSession({
        ...place,
        scenario,
        live: true,
        modelBaseUrl: model.baseUrl,
        modelAsked: (n) => model.waitForRequests(n),
        kill: killProcess,
      });
    },
  };
}

/**
 * Live, with every Codex session recorded: when the scenario has passed, one transcript per
 * session it started is written to `outDir` (NAME.ndjson, or NAME.1.ndjson, NAME.2.ndjson...).
 */
export function codexRecordChannel(options: {
  model: ScriptedModelServer;
  outDir: string;
  version: string;
  /** The command that records it, for the transcripts' headers (default: npm run record:codex). */
  recordedWith?: string;
}): ScenarioChannel {
  const { model } = options;
  return {
    kind: 'record',
    open(scenario, place) {
      const turns = codexModel(scenario.model);
      model.enqueue(...turns);
      const recordings: RecordingChannel[] = [];
      const session = codexSession({
        ...place,
        scenario,
        live: true,
        modelBaseUrl: model.baseUrl,
        modelAsked: (n) => model.waitForRequests(n),
        kill: killProcess,
        channelFor: (_thread, _session, spawn) => {
          const recording = new RecordingChannel(spawn(), { cwd: place.cwd, dataDir: dataDirOf(place.dir) });
          recordings.push(recording);
          return recording;
        },
      });
      const finish = () => {
        // What each session said during the scenario (the teardown after it is not part of it).
        const sessions = recordings.map((r) => [...r.entries]);
        sessions.forEach((entries, i) => {
          writeTranscript(join(options.outDir, transcriptFile(scenario.name, i, sessions.length)), {
            header: {
              kind: 'header',
              provider: 'codex',
              protocol: 'app-server',
              version: options.version,
              scenario: scenario.name,
              metadata: {
                recordedWith: options.recordedWith ?? 'npm run record:codex',
                session: i + 1,
                sessions: sessions.length,
                modelTurns: turns,
                vars: ['cwd', 'dataDir'],
              },
            },
            entries,
          });
        });
      };
      return { ...session, finish };
    },
  };
}

/**
 * Recorded Codex sessions stand in for the Codex process. Only the process is replaced:
 * Baton's adapter, normalizer, runtime, store and projections are the real ones, and every
 * frame Baton sends is checked against the recording.
 */
export class CodexReplayChannel implements ScenarioChannel {
  readonly kind = 'replay';
  /** The replayed sessions of the latest run, in the order they started. */
  replays: ReplayChannel[] = [];
  /** The Codex providers of the latest run. */
  providers: CodexProvider[] = [];
  /** Where the latest run kept Codex's data. */
  dataDir = '';
  /** Edits a recorded session before it is replayed (a test inserts frames; the file is not changed). */
  entriesFor: (entries: TranscriptEntry[]) => TranscriptEntry[] = (entries) => entries;

  constructor(private readonly transcripts: Transcript[]) {}

  /** A scenario's recorded sessions, in the order they started. */
  sessionsOf(name: string): TranscriptEntry[][] {
    const session = (t: Transcript) => Number(t.header.metadata.session ?? 1);
    return this.transcripts
      .filter((t) => t.header.scenario === name)
      .sort((a, b) => session(a) - session(b))
      .map((t) => t.entries);
  }

  open(scenario: ProviderScenario, place: RunPlace): ChannelSession {
    const recorded = this.sessionsOf(scenario.name);
    if (recorded.length === 0)
      throw new Error(`no transcript for ${scenario.name}: run npm run record:codex -- --scenario ${scenario.name}`);
    const replays: ReplayChannel[] = [];
    const dataDir = dataDirOf(place.dir);
    const session = codexSession({
      ...place,
      scenario,
      live: false,
      modelBaseUrl: 'http://127.0.0.1:9/v1',
      channelFor: () => {
        const entries = recorded[replays.length];
        if (!entries)
          throw new Error(`the scenario started more Codex sessions than were recorded (${recorded.length})`);
        const channel = new ReplayChannel(this.entriesFor(entries), { cwd: place.cwd, dataDir });
        replays.push(channel);
        return channel;
      },
      modelAsked: async () => undefined,
      kill: () => replays.at(-1)!.terminate(),
    });
    this.replays = replays;
    this.providers = session.providers;
    this.dataDir = dataDir;
    return {
      ...session,
      finish: () => checkReplaysDone(replays, recorded.length, 'sessions'),
      describe: () => describeReplays(replays),
    };
  }
}
