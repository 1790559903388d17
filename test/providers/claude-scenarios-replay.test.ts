import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeCapabilities } from '../../src/providers/claude/claude-capabilities.js';
import { readTranscript, type TranscriptEntry } from '../../src/providers/transport/transcript.js';
import { runScenario, type ScenarioOutcome } from '../support/scenario-kit/runner.js';
import { applicableScenarios, providerScenarios } from '../support/scenario-kit/scenarios.js';
import { describeScenarios } from '../support/scenario-kit/suite.js';
import { assistantTexts, runtimeWarnings, send, status } from '../support/scenario-kit/baton.js';
import type { ScenarioContext } from '../support/scenario-kit/scenario.js';
import { TempFolders } from '../support/temp.js';
import { dataDirOf } from '../support/scenario-kit/agent-providers.js';
import { readFrameLogs } from '../support/frame-logs.js';
import { ClaudeReplayChannel } from './claude-scenario-channels.js';
import { claudeScenarioProvider } from './claude-scenarios.js';
import { claudeAgents } from '../support/live-claude.js';

/**
 * The shared scenarios as the Claude agent plays them, from transcripts of its stream-json
 * frames recorded off the real binary (`npm run record:claude`): only the agent process is
 * replaced; the SDK and all of Baton are the real ones. A scenario Claude runs without a
 * transcript fails (it is never skipped).
 */
const dir = fileURLToPath(new URL('../fixtures/transcripts/claude/', import.meta.url));
const transcripts = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => f.endsWith('.ndjson'))
      .map((f) => readTranscript(join(dir, f)))
  : [];
const channel = new ClaudeReplayChannel(transcripts);
const applicable = applicableScenarios(claudeScenarioProvider).map((s) => s.name);

afterEach(async () => {
  await channel.gone();
  channel.entriesFor = (entries) => entries;
  expect(claudeAgents()).toEqual([]);
});

describe('the Claude transcripts', () => {
  it('every scenario Claude runs has one (npm run record:claude writes them)', () => {
    const missing = applicable.filter((name) => !transcripts.some((t) => t.header.scenario === name));
    expect(missing, `no transcript for ${missing.join(', ')}: run npm run record:claude`).toEqual([]);
  });

  it('each is of a scenario Claude runs, recorded from the pinned SDK', () => {
    const stale = [...new Set(transcripts.map((t) => t.header.scenario))].filter((name) => !applicable.includes(name));
    expect(stale, `transcripts of scenarios Claude does not run: ${stale.join(', ')}`).toEqual([]);
    expect(new Set(transcripts.map((t) => `claude-agent-sdk/${t.header.version}`))).toEqual(
      new Set(transcripts.length ? [claudeCapabilities.version] : []),
    );
    expect(new Set(transcripts.map((t) => t.header.provider))).toEqual(new Set(transcripts.length ? ['claude'] : []));
  });
});

describeScenarios('Claude scenarios, replayed', claudeScenarioProvider, channel, { timeoutMs: 45_000 });

describe('a replayed Claude agent with bad frames', () => {
  const folders = new TempFolders();
  const outcomes: ScenarioOutcome[] = [];
  afterEach(() => {
    outcomes.splice(0).forEach((o) => o.close());
    folders.removeAll();
  });

  const runSimple = async () => {
    const simple = providerScenarios.find((s) => s.name === 'simple')!;
    const runDir = folders.make('baton-claude-replay-run-');
    const place = {
      cwd: realpathSync(folders.make('baton-claude-replay-ws-')),
      dir: runDir,
      checkpointsRoot: join(runDir, 'checkpoints'),
    };
    const outcome = await runScenario(simple.drive, channel.open(simple, place), place);
    outcomes.push(outcome);
    return { ...outcome, dir: runDir };
  };

  /** The recorded entries with `bad` inserted right after Baton's user message. */
  const afterUserMessage =
    (bad: TranscriptEntry[]) =>
    (entries: TranscriptEntry[]): TranscriptEntry[] => {
      const at = entries.findIndex(
        (e) => e.kind === 'expect_outbound' && (e.frame as { type?: string }).type === 'user',
      );
      return [...entries.slice(0, at + 1), ...bad, ...entries.slice(at + 1)];
    };

  it('garbled, truncated and unknown lines from the agent are passed over as the SDK passes them over, each unreadable one logged and told as a warning; the run is unharmed', async () => {
    channel.entriesFor = afterUserMessage([
      { kind: 'emit_inbound', raw: '{"type":"stream_event","event":{"type":"content_bl' },
      { kind: 'emit_inbound', raw: 'this is not json at all' },
      { kind: 'emit_inbound', frame: { type: 'totally_unknown', x: 1 } },
    ]);
    const { h, dir } = await runSimple();
    expect(channel.replays[0]!.mismatches).toEqual([]);
    expect(assistantTexts(h, 'thr_simple')).toEqual(['Hello from Codex, offline.']);
    expect(runtimeWarnings(h, 'thr_simple')).toEqual([
      'unreadable Claude frame (not a JSON object (garbled or truncated)); it was logged and skipped',
      'unreadable Claude frame (not a JSON object (garbled or truncated)); it was logged and skipped',
    ]);
    // The raw frames, both ways, in the thread's rotating frame log.
    const frames = readFrameLogs(join(dataDirOf(dir), 'claude', 'thr_simple', 'frames'));
    expect(frames.filter((f) => f.problem).map((f) => f.frame)).toEqual([
      '{"type":"stream_event","event":{"type":"content_bl',
      'this is not json at all',
    ]);
    expect(frames.some((f) => f.dir === 'in' && (f.frame as { type?: string }).type === 'totally_unknown')).toBe(true);
    expect(frames.some((f) => f.dir === 'out' && (f.frame as { type?: string }).type === 'user')).toBe(true);
    expect(frames.some((f) => f.dir === 'in' && (f.frame as { type?: string }).type === 'result')).toBe(true);
  });

  it('a frame Baton sends that the recording does not have fails the run at once, saying how it differs', async () => {
    // The recording expects another user message than the one Baton sends.
    channel.entriesFor = (entries) =>
      entries.map((e) =>
        e.kind === 'expect_outbound' && (e.frame as { type?: string }).type === 'user'
          ? { ...e, frame: JSON.parse(JSON.stringify(e.frame).replace('say hello', 'say goodbye')) as unknown }
          : e,
      );
    const simple = providerScenarios.find((s) => s.name === 'simple')!;
    const runDir = folders.make('baton-claude-replay-run-');
    const place = {
      cwd: realpathSync(folders.make('baton-claude-replay-ws-')),
      dir: runDir,
      checkpointsRoot: join(runDir, 'checkpoints'),
    };
    let error = '';
    const drive = async ({ h, cwd }: ScenarioContext) => {
      const threadId = await h.thread({ threadId: 'thr_simple', cwd });
      const runId = await send(h, threadId, 'say hello');
      await h.until(() => status(h, runId) === 'failed');
      error = JSON.stringify(
        h.store.events.readThreadAfter(threadId, 0).find((e) => e.type === 'run.terminal')?.payload,
      );
    };
    await expect(runScenario(drive, channel.open(simple, place), place)).rejects.toThrow(/the replay diverged/);
    // The run's own error says it: the replayed process died on the frame that differs.
    expect(error).toContain('message.content: expected \\"say goodbye\\", sent \\"say hello\\"');
    const mismatch = channel.replays[0]!.mismatches[0] ?? '';
    expect(mismatch).toContain('the replay of simple process 1 (thr_simple) diverged');
    expect(mismatch).toContain('message.content: expected "say goodbye", sent "say hello"');
    expect(mismatch).toContain('sent     {"type":"user"');
  });
});
