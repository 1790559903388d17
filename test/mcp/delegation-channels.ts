import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Runtime } from '../../src/actors/runtime.js';
import { runTerminalStatuses } from '../../src/domain/statuses.js';
import { ClaudeRecording } from '../../src/providers/claude/claude-recording-process.js';
import { ClaudeReplay } from '../../src/providers/claude/claude-replay-process.js';
import { SessionFiles } from '../../src/providers/claude/claude-transcript-files.js';
import { withSentIdPlaceholders } from '../../src/providers/claude/claude-transcript-ids.js';
import { ScriptedMessagesServer, type MessagesResponder } from '../../src/providers/model/scripted-messages-server.js';
import {
  ScriptedModelServer,
  type RecordedRequest,
  type Responder,
} from '../../src/providers/model/scripted-model-server.js';
import { mcpCaller, RecordedExchanges } from '../../src/providers/transport/mcp-exchange.js';
import { McpRecordingProxy } from '../../src/providers/transport/mcp-recording-proxy.js';
import {
  readTranscript,
  RecordingChannel,
  ReplayChannel,
  writeTranscript,
  type Transcript,
  type TranscriptEntry,
  type Vars,
} from '../../src/providers/transport/transcript.js';
import { dataDirOf } from '../support/scenario-kit/agent-providers.js';
import type { RunPlace } from '../support/scenario-kit/channels.js';
import {
  checkReplaysDone,
  describeReplays,
  nextRecorded,
  ProcessPlace,
  processesOf,
  transcriptFile,
} from '../support/scenario-kit/recorded-processes.js';
import { startDelegationBaton, MintedCredentials, type AgentWiring, type DelegationBaton } from './delegation-baton.js';
import { untilCommitted } from './mcp-support.js';

/**
 * The delegation scenarios' channels: live with every agent process recorded (Codex's
 * app-server frames, Claude's stream-json frames, and each one's calls to Baton's MCP
 * server, made through a recording proxy), or replayed from those transcripts, where the
 * replay makes the agents' MCP calls itself (src/providers/transport/mcp-exchange.ts).
 * Transcripts live in test/fixtures/transcripts/delegation/<scenario>/<codex|claude>/.
 */

export interface DelegationContext {
  baton: DelegationBaton;
  cwd: string;
  /** Against the real agents (recording) rather than a replay. */
  live: boolean;
  /** Live: every request Codex's model got, in order. Replay: null (there is no model). */
  codexRequests: RecordedRequest[] | null;
  /** Runs after the scenario, before Baton stops (newest first). */
  onCleanup(cleanup: () => unknown): void;
}

export interface DelegationScenario {
  name: string;
  /** Codex's scripted model, made afresh for each run (it may keep what it saw). */
  codex(): Responder;
  /** Claude's scripted model; by default the offline echo. */
  claude?(): MessagesResponder;
  drive(ctx: DelegationContext): Promise<void>;
}

export interface DelegationSession extends AgentWiring {
  live: boolean;
  codexRequests: RecordedRequest[] | null;
  /** After the scenario passed: a recording is written, a replay checks it played everything. */
  finish(): void;
  /** Where the channel stood when the scenario failed. */
  describe(): string;
  close(): Promise<void>;
}

export interface DelegationChannel {
  kind: 'live' | 'record' | 'replay';
  open(scenario: DelegationScenario, place: RunPlace, credentials: MintedCredentials): Promise<DelegationSession>;
}

/** Where the delegation scenarios' transcripts live: `<scenario>/<codex|claude>/<scenario>[.N].ndjson`. */
export const delegationTranscriptDir = fileURLToPath(new URL('../fixtures/transcripts/delegation/', import.meta.url));

/** The recorded transcripts, by provider, and the scenarios that have a folder. */
export function readDelegationTranscripts(dir = delegationTranscriptDir) {
  const read = { codex: [] as Transcript[], claude: [] as Transcript[], scenarios: [] as string[] };
  if (!existsSync(dir)) return read;
  for (const scenario of readdirSync(dir)) {
    read.scenarios.push(scenario);
    for (const provider of ['codex', 'claude'] as const) {
      const at = join(dir, scenario, provider);
      if (existsSync(at))
        for (const file of readdirSync(at).filter((f) => f.endsWith('.ndjson')))
          read[provider].push(readTranscript(join(at, file)));
    }
  }
  return read;
}

/** The run's temp folders, as transcripts name them. */
const codexVarsOf = (place: RunPlace): Vars => ({ cwd: place.cwd, dataDir: dataDirOf(place.dir) });
/** Claude's also name the workspace among the agent's projects (its path with every character but letters and digits `-`). */
const claudeVarsOf = (place: RunPlace): Vars => ({
  ...codexVarsOf(place),
  cwdKey: place.cwd.replace(/[^A-Za-z0-9]/g, '-'),
});

/** Session N's credential is `{{mcpTokenN}}` in its transcript (it may be said in a frame: Claude's initialize). */
const tokenVar = (session: number) => `mcpToken${session}`;

/** Where a recording is written, and what its headers say. */
export interface RecordOptions {
  outDir(scenario: string): string;
  versions: { codex: string; claude: string };
  recordedWith(scenario: string): string;
}

/**
 * The real agents against their scripted models, each agent process recorded as it runs (its
 * MCP calls through a recording proxy). With `record`, when the scenario has passed, its
 * transcripts are written under `outDir(scenario)`, `codex/` and `claude/`, one per process
 * in the order each provider started them; without, nothing is written (a live run).
 */
export function delegationLiveChannel(record?: RecordOptions): DelegationChannel {
  return {
    kind: record ? 'record' : 'live',
    async open(scenario, place, credentials) {
      const codexModel = await new ScriptedModelServer(scenario.codex()).start();
      const claudeModel = await new ScriptedMessagesServer(scenario.claude?.()).start();
      const byToken = new Map<string, RecordedExchanges>();
      let proxy: McpRecordingProxy | null = null;
      let mcpUrl = '';
      const codex: { thread: string; recording: RecordingChannel; exchanges: RecordedExchanges }[] = [];
      const claude: { thread: string; recording: ClaudeRecording; exchanges: RecordedExchanges }[] = [];
      /** A session's vars: the run's folders, the MCP URL and its own credential. */
      const sessionVars = (threadId: string, session: number, base: Vars) => {
        const { token } = credentials.of(threadId);
        return { token, vars: { ...base, mcpUrl, [tokenVar(session)]: token } };
      };
      return {
        live: true,
        codexModelUrl: codexModel.baseUrl,
        claudeModelUrl: claudeModel.baseUrl,
        codexRequests: codexModel.requests,
        async agentUrl(endpointUrl) {
          proxy = new McpRecordingProxy(endpointUrl, (token) => byToken.get(token) ?? null);
          mcpUrl = await proxy.start();
          return mcpUrl;
        },
        codexChannelFor: (threadId, _session, spawn) => {
          const { token, vars } = sessionVars(threadId, codex.length + 1, codexVarsOf(place));
          const recording = new RecordingChannel(spawn(), vars);
          const exchanges = new RecordedExchanges(() => recording.entries.length, vars);
          byToken.set(token, exchanges);
          codex.push({ thread: threadId, recording, exchanges });
          return recording;
        },
        claudeProcessFor: (scope, spawn) => {
          const configDir = scope.options.env.CLAUDE_CONFIG_DIR;
          if (!configDir) throw new Error('the agent was started without CLAUDE_CONFIG_DIR');
          const { token, vars } = sessionVars(scope.threadId, claude.length + 1, claudeVarsOf(place));
          const recording = new ClaudeRecording(spawn(), scope.options.args, configDir, vars);
          const exchanges = new RecordedExchanges(() => recording.recorded().entries.length, vars);
          byToken.set(token, exchanges);
          claude.push({ thread: scope.threadId, recording, exchanges });
          return recording.process;
        },
        finish() {
          if (!record) return;
          const outDir = record.outDir(scenario.name);
          const recordedWith = record.recordedWith(scenario.name);
          const header = (provider: string, protocol: string, version: string, i: number, count: number) => ({
            kind: 'header' as const,
            provider,
            protocol,
            version,
            scenario: scenario.name,
            metadata: { recordedWith, session: i + 1, sessions: count },
          });
          const file = (provider: string, i: number, count: number) =>
            join(outDir, provider, transcriptFile(scenario.name, i, count));
          codex.forEach(({ thread, recording, exchanges }, i) => {
            const h = header('codex', 'app-server', record.versions.codex, i, codex.length);
            writeTranscript(file('codex', i, codex.length), {
              header: {
                ...h,
                metadata: { ...h.metadata, thread, vars: ['cwd', 'dataDir', 'mcpUrl', tokenVar(i + 1)] },
              },
              entries: exchanges.into([...recording.entries]),
            });
          });
          const { processes, replace } = withSentIdPlaceholders(claude.map((c) => c.recording.recorded()));
          processes.forEach(({ args, entries }, i) => {
            const { thread, recording, exchanges } = claude[i]!;
            const h = header('claude', 'stream-json', record.versions.claude, i, claude.length);
            const vars = [...Object.keys(claudeVarsOf(place)), 'mcpUrl', tokenVar(i + 1)];
            writeTranscript(file('claude', i, claude.length), {
              header: {
                ...h,
                metadata: { ...h.metadata, thread, vars, args, sessionFiles: recording.sessionFiles(replace) },
              },
              entries: exchanges.into(entries),
            });
          });
        },
        describe: () =>
          `Codex's model was asked ${codexModel.requests.length} times, Claude's ${claudeModel.messageRequests.length}`,
        async close() {
          await proxy?.stop();
          await Promise.all([codexModel.stop(), claudeModel.stop()]);
        },
      };
    },
  };
}

const ClaudeMeta = ProcessPlace.extend({ args: z.array(z.string()), sessionFiles: SessionFiles.nullable() });

/**
 * Recorded agent processes stand in for the real ones (only the processes: Baton's adapters,
 * normalizers, runtime, store and MCP server are the real ones). Each process is matched to
 * the thread it was recorded for, its frames checked as Codex's and Claude's replays check
 * them, and its MCP requests made again with the credential Baton minted for it.
 */
export function delegationReplayChannel(transcripts: { codex: Transcript[]; claude: Transcript[] }): DelegationChannel {
  return {
    kind: 'replay',
    open(scenario, place, credentials) {
      const named = (meta: z.output<typeof ProcessPlace>, entries: TranscriptEntry[]) => ({
        thread: meta.thread,
        session: meta.session,
        entries,
      });
      const codex = processesOf(transcripts.codex, scenario.name, ProcessPlace).map((p) => named(p.meta, p.entries));
      const claude = processesOf(transcripts.claude, scenario.name, ClaudeMeta).map((p) => ({
        ...named(p.meta, p.entries),
        args: p.meta.args,
        sessionFiles: p.meta.sessionFiles,
      }));
      if (codex.length + claude.length === 0)
        throw new Error(
          `no transcript for ${scenario.name}: run npm run record:delegation -- --scenario ${scenario.name}`,
        );
      const replays: (ReplayChannel | ClaudeReplay)[] = [];
      const started = { codex: [] as typeof codex, claude: [] as typeof claude };
      // One set for Claude's processes: an id Baton gave one may be named to the next.
      const claudeVars = claudeVarsOf(place);
      return Promise.resolve({
        live: false,
        codexModelUrl: 'http://127.0.0.1:9/v1',
        claudeModelUrl: 'http://127.0.0.1:9',
        codexRequests: null,
        agentUrl: (endpointUrl) => Promise.resolve(endpointUrl),
        codexChannelFor: (threadId) => {
          const next = nextRecorded(codex, started.codex, threadId, 'Codex sessions');
          const minted = credentials.of(threadId);
          const vars = { ...codexVarsOf(place), mcpUrl: minted.url, [tokenVar(next.session)]: minted.token };
          const channel = new ReplayChannel(next.entries, vars);
          channel.mcp = mcpCaller(minted, vars, `${scenario.name} Codex session ${next.session} (${threadId})`);
          replays.push(channel);
          return channel;
        },
        claudeProcessFor: (scope) => {
          const next = nextRecorded(claude, started.claude, scope.threadId, 'Claude agent processes');
          const minted = credentials.of(scope.threadId);
          Object.assign(claudeVars, { mcpUrl: minted.url, [tokenVar(next.session)]: minted.token });
          const label = `${scenario.name} Claude process ${next.session} (${scope.threadId})`;
          const replay = new ClaudeReplay(next, claudeVars, label, scope.options.args);
          replay.callMcpWith(mcpCaller(minted, claudeVars, label));
          scope.options.signal.addEventListener('abort', () => replay.process.kill('SIGTERM'), { once: true });
          replays.push(replay);
          return replay.process;
        },
        finish: () => checkReplaysDone(replays, codex.length + claude.length, 'recorded processes'),
        describe: () => describeReplays(replays),
        close: () => Promise.resolve(),
      });
    },
  };
}

/**
 * Nothing more happens by itself: no thread has a run going or waiting to start (a held queue
 * waits for a send), and every task that has ended has had its parent's wake-up decided and,
 * if owed, queued. A scenario ends so (and steps where it must), or a recording would stop
 * where the replay's Baton goes on.
 */
export function quiet(runtime: Runtime): boolean {
  const { projections } = runtime.store;
  const ended = (runId: string) =>
    (runTerminalStatuses as readonly string[]).includes(projections.get('runs', runId)?.status ?? 'queued');
  return projections
    .list('threads')
    .every(
      (t) =>
        !t.activeRunId &&
        (t.queuedRunCount === 0 || t.queueHeld) &&
        projections
          .list('delegated_tasks', t.id)
          .every(
            (task) =>
              !ended(task.taskRunId) || (task.endStatus !== null && !['awaiting_end', 'owed'].includes(task.wake)),
          ),
    );
}

/**
 * Runs one scenario on a fresh Baton wired to the channel, the same way recorded and replayed,
 * until it is quiet; the error of a failed one says where the channel stood.
 */
export async function runDelegationScenario(
  scenario: DelegationScenario,
  channel: DelegationChannel,
  place: RunPlace,
): Promise<void> {
  const credentials = new MintedCredentials();
  const session = await channel.open(scenario, place, credentials);
  const cleanups: (() => unknown)[] = [];
  let baton: DelegationBaton | null = null;
  try {
    const started = await startDelegationBaton(place, session, credentials);
    baton = started;
    await scenario.drive({
      baton: started,
      cwd: place.cwd,
      live: session.live,
      codexRequests: session.codexRequests,
      onCleanup: (cleanup) => void cleanups.push(cleanup),
    });
    await untilCommitted(started, () => quiet(started.runtime), 'Baton to have nothing more to do');
    session.finish();
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const rerecord = session.live
      ? ''
      : `\n(if Baton now does this on purpose, re-record: npm run record:delegation -- --scenario ${scenario.name})`;
    throw new Error(`${error.message}\n${session.describe()}${rerecord}`, { cause: error });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await baton?.close();
    await session.close();
  }
}
