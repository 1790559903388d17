import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { claudeCapabilities } from '../../src/providers/claude/claude-capabilities.js';
import type { AgentProcessFactory } from '../../src/providers/claude/claude-process.js';
import { ClaudeProvider } from '../../src/providers/claude/claude-provider.js';
import { ClaudeRecording } from '../../src/providers/claude/claude-recording-process.js';
import { ClaudeReplay, type ReplayedProcess } from '../../src/providers/claude/claude-replay-process.js';
import { SessionFiles } from '../../src/providers/claude/claude-transcript-files.js';
import { withSentIdPlaceholders } from '../../src/providers/claude/claude-transcript-ids.js';
import type { ScriptedMessagesServer } from '../../src/providers/model/scripted-messages-server.js';
import {
  writeTranscript,
  type Transcript,
  type TranscriptEntry,
  type Vars,
} from '../../src/providers/transport/transcript.js';
import {
  dataDirOf,
  killAgent,
  latestSession,
  runProviders,
  type GoneChannel,
  type GoneSession,
} from '../support/scenario-kit/agent-providers.js';
import type { ChannelSession, RunPlace } from '../support/scenario-kit/channels.js';
import {
  checkReplaysDone,
  describeReplays,
  nextRecorded,
  ProcessPlace,
  processesOf,
  removeTranscripts,
  transcriptFile,
} from '../support/scenario-kit/recorded-processes.js';
import type { ProviderScenario } from '../support/scenario-kit/scenario.js';
import { claudeModel } from './claude-model.js';

/** Claude's channels into the scenario kit: live, recording and replay (of the agent's stream-json frames). */

/**
 * The temp folders of a run that transcripts carry as placeholders: the workspace, the agents'
 * folders, and the workspace's name among the agent's projects (its path with every
 * character but letters and digits made `-`); for a scenario with MCP servers, the paths of
 * their commands (this Node, the repo's fixtures), which the agent is told at its start.
 */
const varsOf = (place: RunPlace, scenario: Pick<ProviderScenario, 'mcpServers'>): Vars => ({
  cwd: place.cwd,
  dataDir: dataDirOf(place.dir),
  cwdKey: place.cwd.replace(/[^A-Za-z0-9]/g, '-'),
  ...(scenario.mcpServers
    ? { node: process.execPath, fixtures: fileURLToPath(new URL('../fixtures/', import.meta.url)) }
    : {}),
});

/** One Claude run of a scenario, however the agent process is provided. */
interface ClaudeRun extends RunPlace {
  scenario: ProviderScenario;
  live: boolean;
  modelBaseUrl: string;
  /** Recordings and replays give their processes; live runs spawn the binary. */
  processFor?: AgentProcessFactory;
  modelAsked(n: number): Promise<void>;
  /** How the scenario's kill is carried out: a real signal, or a replayed exit. */
  kill(provider: ClaudeProvider, threadId: string): void;
  describe(): string;
}

/** A Claude run's session, and a way to wait until its agent processes are gone. */
export interface ClaudeSession extends GoneSession {
  /** Every ClaudeProvider the run made (a restart makes another). */
  providers: ClaudeProvider[];
}

/** Wires Claude into a scenario run's Baton. */
function claudeSession(run: ClaudeRun): ClaudeSession {
  const made = runProviders<ClaudeProvider>('Claude');
  const adjust = run.scenario.adjustCapabilities;
  return {
    providers: made.providers,
    live: run.live,
    capabilities: adjust ? adjust(claudeCapabilities) : claudeCapabilities,
    harness: {
      ...(adjust ? { capabilities: () => adjust(claudeCapabilities) } : {}),
      checkpoints: new CheckpointStore({ root: run.checkpointsRoot }),
      defaultProvider: 'claude',
      providers: (runtime) => {
        const provider = new ClaudeProvider(runtime, {
          endpoint: { baseUrl: run.modelBaseUrl, model: 'claude-sonnet-4-5' },
          dataDir: dataDirOf(run.dir),
          ...(run.scenario.mcpServers ? { mcpServers: run.scenario.mcpServers } : {}),
          ...(run.processFor ? { processFor: run.processFor } : {}),
        });
        made.providers.push(provider);
        return [provider.provider()];
      },
    },
    modelAsked: (n) => run.modelAsked(n),
    kill: (threadId) => run.kill(made.latest(threadId), threadId),
    stop: made.stop,
    describe: () => run.describe(),
    gone: made.gone,
  };
}

const killProcess = killAgent('Claude');

/** A live run against the scripted Messages-API model (what both the live and the record channels are). */
function liveRun(model: ScriptedMessagesServer, scenario: ProviderScenario, place: RunPlace): ClaudeRun {
  model.enqueue(...claudeModel(scenario.model, { cwd: place.cwd }));
  return {
    ...place,
    scenario,
    live: true,
    modelBaseUrl: model.baseUrl,
    modelAsked: (n) => model.waitForRequests(n),
    kill: killProcess,
    describe: () => `the model was asked ${model.messageRequests.length} times`,
  };
}

/** The real Claude agent (the SDK's native binary) against the scripted Messages-API model. */
export function claudeLiveChannel(model: ScriptedMessagesServer): GoneChannel {
  return latestSession('live', (scenario, place) => claudeSession(liveRun(model, scenario, place)));
}

/**
 * Live, with every agent process recorded: when the scenario has passed, one transcript per
 * process it started (in the order they started) replaces the scenario's transcripts in `outDir`.
 */
export function claudeRecordChannel(options: {
  model: ScriptedMessagesServer;
  outDir: string;
  version: string;
  /** The command that records it, for the transcripts' headers (default: npm run record:claude). */
  recordedWith?: string;
}): GoneChannel {
  return latestSession('record', (scenario, place) => {
    const recordings: { thread: string; recording: ClaudeRecording }[] = [];
    const session = claudeSession({
      ...liveRun(options.model, scenario, place),
      processFor: (scope, spawn) => {
        const configDir = scope.options.env.CLAUDE_CONFIG_DIR;
        if (!configDir) throw new Error('the agent was started without CLAUDE_CONFIG_DIR');
        const recording = new ClaudeRecording(spawn(), scope.options.args, configDir, varsOf(place, scenario));
        recordings.push({ thread: scope.threadId, recording });
        return recording.process;
      },
      // The scenario's kill, recorded as one (a replay's process dies there when the scenario kills it).
      kill: (_provider, threadId) => {
        const latest = recordings.findLast((r) => r.thread === threadId);
        if (!latest) throw new Error(`no Claude agent runs for ${threadId}`);
        latest.recording.kill('SIGKILL');
      },
    });
    const finish = () => {
      // What each process said during the scenario (the teardown after it is not part of it).
      const { processes, replace } = withSentIdPlaceholders(recordings.map((r) => r.recording.recorded()));
      removeTranscripts(options.outDir, scenario.name);
      processes.forEach(({ args, entries }, i) =>
        writeTranscript(join(options.outDir, transcriptFile(scenario.name, i, processes.length)), {
          header: {
            kind: 'header',
            provider: 'claude',
            protocol: 'stream-json',
            version: options.version,
            scenario: scenario.name,
            metadata: {
              recordedWith: options.recordedWith ?? 'npm run record:claude',
              session: i + 1,
              sessions: processes.length,
              thread: recordings[i]!.thread,
              modelSteps: scenario.model,
              vars: Object.keys(varsOf(place, scenario)),
              args,
              sessionFiles: recordings[i]!.recording.sessionFiles(replace),
            },
          },
          entries,
        }),
      );
    };
    return { ...session, finish };
  });
}

/** What a transcript's header says of its process. */
const ProcessMetadata = ProcessPlace.extend({ args: z.array(z.string()), sessionFiles: SessionFiles.nullable() });

/** A recorded agent process: which thread it ran for, how it was started, what it said and was told. */
interface RecordedProcess extends ReplayedProcess {
  thread: string;
}

/**
 * Recorded agent processes stand in for the real ones. Only the process is replaced: the
 * SDK, Baton's adapter, normalizer, runtime, store and projections are the real ones, and every
 * frame the SDK writes for Baton is checked against the recording.
 */
export class ClaudeReplayChannel implements GoneChannel {
  readonly kind = 'replay';
  /** The replayed processes of the latest run, in the order they started. */
  replays: ClaudeReplay[] = [];
  /** The Claude providers of the latest run. */
  providers: ClaudeProvider[] = [];
  /** Edits a recorded process before it is replayed (a test inserts frames; the file is not changed). */
  entriesFor: (entries: TranscriptEntry[]) => TranscriptEntry[] = (entries) => entries;
  private current: ClaudeSession | null = null;

  constructor(private readonly transcripts: Transcript[]) {}

  /** A scenario's recorded processes, in the order they started. */
  processesOf(name: string): RecordedProcess[] {
    return processesOf(this.transcripts, name, ProcessMetadata).map(({ meta, entries }) => ({
      thread: meta.thread,
      args: meta.args,
      sessionFiles: meta.sessionFiles,
      entries,
    }));
  }

  open(scenario: ProviderScenario, place: RunPlace): ChannelSession {
    const recorded = this.processesOf(scenario.name);
    if (recorded.length === 0)
      throw new Error(
        `no transcript for the scenario ${scenario.name}: run npm run record:claude -- --scenario ${scenario.name}`,
      );
    const replays: ClaudeReplay[] = [];
    const started: RecordedProcess[] = [];
    // One set for the run: an id Baton gave one process may be named to the next.
    const vars = varsOf(place, scenario);
    const byThread = new Map<string, ClaudeReplay>();
    const session = claudeSession({
      ...place,
      scenario,
      live: false,
      modelBaseUrl: 'http://127.0.0.1:9',
      processFor: (scope) => {
        const next = nextRecorded(recorded, started, scope.threadId, 'Claude agent processes');
        const replay = new ClaudeReplay(
          { ...next, entries: this.entriesFor(next.entries) },
          vars,
          `${scenario.name} process ${recorded.indexOf(next) + 1} (${scope.threadId})`,
          scope.options.args,
        );
        scope.options.signal.addEventListener('abort', () => replay.process.kill('SIGTERM'), { once: true });
        replays.push(replay);
        byThread.set(scope.threadId, replay);
        return replay.process;
      },
      modelAsked: async () => undefined,
      kill: (_provider, threadId) => {
        const replay = byThread.get(threadId);
        if (!replay) throw new Error(`no replayed Claude agent runs for ${threadId}`);
        replay.terminate();
      },
      describe: () => describeReplays(replays),
    });
    this.replays = replays;
    this.providers = session.providers;
    this.current = session;
    return {
      ...session,
      finish: () => checkReplaysDone(replays, recorded.length, 'recorded processes'),
    };
  }

  gone(): Promise<void> {
    return this.current?.gone() ?? Promise.resolve();
  }
}
