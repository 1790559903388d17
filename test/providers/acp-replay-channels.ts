import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { AcpRecording } from '../../src/providers/acp/acp-recording.js';
import { AcpReplay } from '../../src/providers/acp/acp-replay.js';
import { withSentIdPlaceholders } from '../../src/providers/acp/acp-transcript-ids.js';
import {
  readTranscript,
  writeTranscript,
  type Transcript,
  type TranscriptEntry,
  type Vars,
} from '../../src/providers/transport/transcript.js';
import type { BuiltInAgent } from '../support/live-acp.js';
import { dataDirOf, latestSession, type GoneChannel } from '../support/scenario-kit/agent-providers.js';
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
import {
  acpAgentCapabilities,
  acpLiveRun,
  acpSession,
  type AcpModel,
  type AcpSession,
} from './acp-scenario-channels.js';

/**
 * The ACP provider's recording and replay channels into the scenario kit: the NDJSON frames
 * each agent process said and was told, per built-in agent, in
 * test/fixtures/transcripts/acp/<agent>/<scenario>[.N].ndjson (`npm run record:acp`).
 */

/** Where an agent's transcripts live. */
export const acpTranscriptDir = (agent: string): string =>
  fileURLToPath(new URL(`../fixtures/transcripts/acp/${agent}/`, import.meta.url));

/** An agent's transcripts (none when it has no folder yet). */
export function readAcpTranscripts(agent: string): Transcript[] {
  const dir = acpTranscriptDir(agent);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ndjson'))
    .map((f) => readTranscript(join(dir, f)));
}

/**
 * What transcripts carry as placeholders: the run's temp folders, and for a scenario with MCP
 * servers the paths of their commands (this Node, the repo's fixtures), which session/new names.
 */
const varsOf = (place: RunPlace, scenario: Pick<ProviderScenario, 'mcpServers'>): Vars => ({
  cwd: place.cwd,
  dataDir: dataDirOf(place.dir),
  ...(scenario.mcpServers
    ? { node: process.execPath, fixtures: fileURLToPath(new URL('../fixtures/', import.meta.url)) }
    : {}),
});

/**
 * Live, with every agent process recorded: when the scenario has passed, one transcript per
 * process it started (in the order they started) replaces the scenario's transcripts in the
 * agent's folder (or `outDir`).
 */
export function acpRecordChannel(options: {
  model: AcpModel;
  outDir?: string;
  /** The command that records it, for the transcripts' headers (default: npm run record:acp for the scenario). */
  recordedWith?: string;
}): GoneChannel {
  const agent = options.model.agent;
  const outDir = options.outDir ?? acpTranscriptDir(agent);
  return latestSession('record', (scenario, place) => {
    const recordings: { thread: string; recording: AcpRecording }[] = [];
    const session = acpSession({
      ...acpLiveRun(options.model, scenario, place),
      provider: {
        channelFor: (threadId, _sessionId, spawn) => {
          const recording = new AcpRecording(spawn(), varsOf(place, scenario));
          recordings.push({ thread: threadId, recording });
          return recording.channel;
        },
      },
      // The scenario's kill, recorded as one (a replay's process dies there when the scenario kills it).
      kill: (provider, threadId) => {
        const pid = provider.adapter(threadId).pid;
        if (!pid) throw new Error(`no ACP agent runs for ${threadId}`);
        recordings.findLast((r) => r.thread === threadId)?.recording.killedByScenario();
        process.kill(pid, 'SIGKILL');
      },
    });
    const finish = () => {
      // What each process said during the scenario (the teardown after it is not part of it).
      const processes = withSentIdPlaceholders(recordings.map((r) => r.recording.recorded()));
      removeTranscripts(outDir, scenario.name);
      processes.forEach((entries, i) =>
        writeTranscript(join(outDir, transcriptFile(scenario.name, i, processes.length)), {
          header: {
            kind: 'header',
            provider: 'acp',
            protocol: 'acp-ndjson',
            version: acpAgentCapabilities(agent).version,
            scenario: scenario.name,
            metadata: {
              recordedWith:
                options.recordedWith ?? `npm run record:acp -- --agent ${agent} --scenario ${scenario.name}`,
              agent,
              session: i + 1,
              sessions: processes.length,
              thread: recordings[i]!.thread,
              modelSteps: scenario.model,
              vars: Object.keys(varsOf(place, scenario)),
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
const ProcessMetadata = ProcessPlace.extend({ agent: z.string() });

/** A recorded agent process: which thread it ran for, and what it said and was told. */
interface RecordedProcess {
  thread: string;
  entries: TranscriptEntry[];
}

/**
 * Recorded agent processes stand in for the real ones. Only the process is replaced: the
 * ACP SDK's client, Baton's adapter, normalizer, runtime, store and projections are the real
 * ones, and every frame Baton sends is checked against the recording.
 */
export class AcpReplayChannel implements GoneChannel {
  readonly kind = 'replay';
  /** The replayed processes of the latest run, in the order they started. */
  replays: AcpReplay[] = [];
  /** The latest run's session (its providers). */
  session: AcpSession | null = null;
  /** Edits a recorded process before it is replayed (a test changes frames; the file is not changed). */
  entriesFor: (entries: TranscriptEntry[]) => TranscriptEntry[] = (entries) => entries;

  constructor(
    readonly agent: BuiltInAgent,
    private readonly transcripts: Transcript[],
  ) {}

  /** A scenario's recorded processes, in the order they started. */
  processesOf(name: string): RecordedProcess[] {
    return processesOf(this.transcripts, name, ProcessMetadata).map(({ meta, entries }) => ({
      thread: meta.thread,
      entries,
    }));
  }

  open(scenario: ProviderScenario, place: RunPlace): ChannelSession {
    const recorded = this.processesOf(scenario.name);
    if (recorded.length === 0)
      throw new Error(
        `no ${this.agent} transcript for the scenario ${scenario.name}: run npm run record:acp -- --agent ${this.agent} --scenario ${scenario.name}`,
      );
    const replays: AcpReplay[] = [];
    const started: RecordedProcess[] = [];
    // One set for the run: an id Baton gave one process may be named to the next.
    const vars = varsOf(place, scenario);
    const byThread = new Map<string, AcpReplay>();
    const session = acpSession({
      ...place,
      agent: this.agent,
      scenario,
      live: false,
      modelBaseUrl: 'http://127.0.0.1:9',
      provider: {
        channelFor: (threadId) => {
          const next = nextRecorded(recorded, started, threadId, `${this.agent} processes`);
          const replay = new AcpReplay(
            this.entriesFor(next.entries),
            vars,
            `${scenario.name} process ${recorded.indexOf(next) + 1} (${threadId})`,
          );
          replays.push(replay);
          byThread.set(threadId, replay);
          return replay;
        },
      },
      modelAsked: async () => undefined,
      kill: (_provider, threadId) => {
        const replay = byThread.get(threadId);
        if (!replay) throw new Error(`no replayed ACP agent runs for ${threadId}`);
        replay.terminate();
      },
      describe: () => describeReplays(replays),
    });
    this.replays = replays;
    this.session = session;
    return {
      ...session,
      finish: () => checkReplaysDone(replays, recorded.length, 'recorded processes'),
    };
  }

  gone(): Promise<void> {
    return this.session?.gone() ?? Promise.resolve();
  }
}
