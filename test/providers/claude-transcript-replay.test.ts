import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentProcess } from '../../src/providers/claude/claude-process.js';
import { ClaudeRecording } from '../../src/providers/claude/claude-recording-process.js';
import { ClaudeReplay, type ReplayedProcess } from '../../src/providers/claude/claude-replay-process.js';
import { withSentIdPlaceholders } from '../../src/providers/claude/claude-transcript-ids.js';
import type { TranscriptEntry } from '../../src/providers/transport/transcript.js';
import { TempFolders } from '../support/temp.js';

/**
 * The Claude agent's transport seam on its own: a replayed process checks what the SDK writes
 * and says what the recording said; a recording process tees a real child's stdio; Baton's
 * fresh ids travel as placeholders.
 */
const folders = new TempFolders();
afterEach(() => folders.removeAll());

/** What a process says on stdout, line by line, and how it ends. */
function watch(process: AgentProcess) {
  const lines: string[] = [];
  let buffer = '';
  process.stdout.setEncoding('utf8');
  process.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
  });
  const errors: string[] = [];
  process.on('error', (e) => errors.push(e.message));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    process.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const said = async (n: number) => {
    const deadline = Date.now() + 5_000;
    while (lines.length < n) {
      if (Date.now() > deadline) throw new Error(`got ${lines.length} of ${n} lines: ${lines.join(' | ')}`);
      await new Promise((r) => setImmediate(r));
    }
    return lines;
  };
  return { lines, errors, exited, said };
}

const write = (process: AgentProcess, frame: unknown) => process.stdin.write(`${JSON.stringify(frame)}\n`);

const initialize = (id: string) => ({ request_id: id, type: 'control_request', request: { subtype: 'initialize' } });
const user = (uuid: string, text: string) => ({
  type: 'user',
  message: { role: 'user', content: text },
  parent_tool_use_id: null,
  uuid,
});

/** A recorded process: initialize, one user message, the agent's echo of both, then `end`. */
const recorded = (end: TranscriptEntry[] = [], args: string[] = []): ReplayedProcess => ({
  args,
  sessionFiles: null,
  entries: [
    { kind: 'expect_outbound', frame: initialize('{{sent1}}') },
    { kind: 'emit_inbound', frame: { type: 'control_response', response: { request_id: '{{sent1}}' } } },
    { kind: 'expect_outbound', frame: user('{{sent2}}', 'say hello') },
    { kind: 'emit_inbound', raw: '{"type":"stream_event","event":{"ty' },
    { kind: 'emit_inbound', frame: { type: 'command_lifecycle', command_uuid: '{{sent2}}', cwd: '{{cwd}}' } },
    ...end,
  ],
});

describe('a replayed Claude agent process', () => {
  it("answers with the recording, Baton's fresh ids and the temp folders put in, and says garbled lines as they were", async () => {
    const replay = new ClaudeReplay(recorded(), { cwd: '/work/here' }, 'unit', []);
    const seen = watch(replay.process);
    write(replay.process, initialize('req_fresh_1'));
    expect(JSON.parse((await seen.said(1))[0]!)).toEqual({
      type: 'control_response',
      response: { request_id: 'req_fresh_1' },
    });
    write(replay.process, user('uuid-fresh-2', 'say hello'));
    const lines = await seen.said(3);
    // A garbled line is said as it was: the SDK passes over lines that are not JSON.
    expect(lines[1]).toBe('{"type":"stream_event","event":{"ty');
    expect(JSON.parse(lines[2]!)).toEqual({
      type: 'command_lifecycle',
      command_uuid: 'uuid-fresh-2',
      cwd: '/work/here',
    });
    expect(replay.mismatches).toEqual([]);
    expect(replay.remaining).toEqual([]);
  });

  it('a frame that differs from the next recorded one ends the process at once, saying where it differs', async () => {
    const replay = new ClaudeReplay(recorded(), { cwd: '/w' }, 'unit', []);
    const seen = watch(replay.process);
    write(replay.process, initialize('req_1'));
    write(replay.process, { ...user('uuid-2', 'say goodbye'), type: 'user' });
    expect(await seen.exited).toEqual({ code: 1, signal: null });
    const [error] = seen.errors;
    expect(error).toContain('the replay of unit diverged');
    expect(error).toContain('message.content: expected "say hello", sent "say goodbye"');
    expect(replay.mismatches[0]).toBe(error);
    expect(replay.process.exitCode).toBe(1);
  });

  it('one fresh value does not stand for two recorded ids', async () => {
    const replay = new ClaudeReplay(recorded(), {}, 'unit', []);
    const seen = watch(replay.process);
    write(replay.process, initialize('same'));
    write(replay.process, user('same', 'say hello'));
    await seen.exited;
    expect(seen.errors[0]).toContain('uuid: expected "{{sent2}}", sent "same"');
  });

  it('a kill plays the recording to its recorded exit: the process dies by the recorded signal', async () => {
    const replay = new ClaudeReplay(
      recorded([
        { kind: 'emit_inbound', frame: { type: 'stream_event', n: 1 } },
        { kind: 'runtime_exit', reason: 'killed by SIGKILL' },
      ]),
      {},
      'unit',
      [],
    );
    const seen = watch(replay.process);
    write(replay.process, initialize('r1'));
    write(replay.process, user('u2', 'say hello'));
    await seen.said(4);
    // The recorded exit waits for the kill (the scenario's, or Baton's): it is not queued behind the lines.
    for (let turn = 0; turn < 5; turn += 1) await new Promise((r) => setImmediate(r));
    expect(replay.process.exitCode).toBeNull();
    expect(replay.process.kill('SIGTERM')).toBe(true);
    expect(await seen.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(replay.process.signalCode).toBe('SIGKILL');
    expect(replay.process.killed).toBe(true);
  });

  it('an exit the recorded process took on its own is played in its place, with no kill', async () => {
    const replay = new ClaudeReplay(
      recorded([
        { kind: 'emit_inbound', frame: { type: 'result', is_error: true } },
        { kind: 'runtime_exit', reason: 'exited with code 1 on its own' },
      ]),
      {},
      'unit',
      [],
    );
    const seen = watch(replay.process);
    write(replay.process, initialize('r1'));
    write(replay.process, user('u2', 'say hello'));
    expect(await seen.exited).toEqual({ code: 1, signal: null });
    expect(seen.lines.at(-1)).toContain('"result"');
    expect(seen.errors).toEqual([]);
  });

  it('checks the session Baton starts the agent on: a resume of another session fails at the first frame', async () => {
    const args = ['--verbose', '--resume=agent-session-1', '--session-id={{sent9}}'];
    const ok = new ClaudeReplay(recorded([], args), {}, 'unit', ['--resume=agent-session-1', '--session-id=fresh']);
    watch(ok.process);
    write(ok.process, initialize('r1'));
    await new Promise((r) => setImmediate(r));
    expect(ok.mismatches).toEqual([]);

    const other = new ClaudeReplay(recorded([], args), {}, 'unit', ['--resume=agent-session-2', '--session-id=x']);
    const seen = watch(other.process);
    write(other.process, initialize('r1'));
    await seen.exited;
    expect(seen.errors[0]).toContain('the agent was started on another session than recorded');
    expect(seen.errors[0]).toContain('0: expected "--resume=agent-session-1", sent "--resume=agent-session-2"');
  });

  it("writes the agent's session files where and when it wrote them, the ids put in", async () => {
    const dir = folders.make('baton-claude-files-');
    const path = join(dir, 'projects', 'p', '{{sent2}}.jsonl');
    const replay = new ClaudeReplay(
      {
        ...recorded([
          { kind: 'emit_inbound', frame: { type: 'result', uuid: 'res-1' } },
          { kind: 'runtime_exit', reason: 'killed by SIGKILL' },
        ]),
        sessionFiles: {
          files: [{ path, lines: ['{"uuid":"{{sent2}}"}', '{"uuid":"a"}', '{"uuid":"later"}'] }],
          marks: [{ result: 'res-1', counts: [2] }],
        },
      },
      {},
      'unit',
      [],
    );
    const seen = watch(replay.process);
    write(replay.process, initialize('r1'));
    write(replay.process, user('u-fresh', 'say hello'));
    await seen.said(4);
    const file = join(dir, 'projects', 'p', 'u-fresh.jsonl');
    expect(readFileSync(file, 'utf8')).toBe('{"uuid":"u-fresh"}\n{"uuid":"a"}\n');
    replay.process.kill('SIGKILL');
    await seen.exited;
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });
});

describe("Baton's fresh ids in a recording", () => {
  it("become placeholders across a scenario's processes; the agent's own ids stay", () => {
    const { processes, replace } = withSentIdPlaceholders([
      {
        args: [],
        entries: [
          { kind: 'expect_outbound', frame: { request_id: 'sdk-req-1', type: 'control_request' } },
          { kind: 'emit_inbound', frame: { type: 'control_request', request_id: 'agent-req-7', session_id: 'S1' } },
          { kind: 'expect_outbound', frame: { type: 'control_response', response: { request_id: 'agent-req-7' } } },
          { kind: 'expect_outbound', frame: { type: 'user', uuid: 'baton-uuid-1' } },
          { kind: 'emit_inbound', raw: 'garbled baton-uuid-1' },
        ],
        wrote: ['{"uuid":"assistant-9"}'],
      },
      { args: ['--resume=S1', '--resume-session-at=assistant-9', '--session-id=fresh-S2'], entries: [] },
    ]);
    expect(processes[0]!.entries).toEqual([
      { kind: 'expect_outbound', frame: { request_id: '{{sent1}}', type: 'control_request' } },
      { kind: 'emit_inbound', frame: { type: 'control_request', request_id: 'agent-req-7', session_id: 'S1' } },
      { kind: 'expect_outbound', frame: { type: 'control_response', response: { request_id: 'agent-req-7' } } },
      { kind: 'expect_outbound', frame: { type: 'user', uuid: '{{sent2}}' } },
      { kind: 'emit_inbound', raw: 'garbled {{sent2}}' },
    ]);
    expect(processes[1]!.args).toEqual(['--resume=S1', '--resume-session-at=assistant-9', '--session-id={{sent3}}']);
    expect(replace('projects/fresh-S2.jsonl')).toBe('projects/{{sent3}}.jsonl');
  });
});

describe('a recorded Claude agent process', () => {
  /** A stand-in agent (a real child process): echoes each line back as `{"echo":…}`, and exits 3 on `bye`. */
  const agent = () =>
    spawn(
      process.execPath,
      [
        '-e',
        `require('readline').createInterface({ input: process.stdin }).on('line', (l) => {
          process.stdout.write(JSON.stringify({ echo: JSON.parse(l) }) + '\\nnot json\\n');
          if (JSON.parse(l).bye) process.exit(3);
        });`,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );

  it("tees both directions and the exit; an exit nobody asked for is marked as the process's own", async () => {
    const dir = folders.make('baton-claude-rec-');
    const recording = new ClaudeRecording(agent(), ['--session-id=abc'], join(dir, 'config'), { dataDir: dir });
    const seen = watch(recording.process);
    write(recording.process, { uuid: 'u1', path: `${dir}/x` });
    await seen.said(2);
    write(recording.process, { bye: true });
    expect(await seen.exited).toEqual({ code: 3, signal: null });
    expect(recording.process.pid).toBeGreaterThan(0);
    const { args, entries } = recording.recorded();
    expect(args).toEqual(['--session-id=abc']);
    expect(entries.map(({ kind, ...rest }) => ({ kind, ...('afterMs' in rest ? {} : rest) }))).toEqual([
      { kind: 'expect_outbound', frame: { uuid: 'u1', path: '{{dataDir}}/x' } },
      { kind: 'emit_inbound' },
      { kind: 'emit_inbound' },
      { kind: 'expect_outbound', frame: { bye: true } },
      { kind: 'emit_inbound' },
      { kind: 'emit_inbound' },
      { kind: 'runtime_exit', reason: 'exited with code 3 on its own' },
    ]);
    expect(entries[1]).toMatchObject({ frame: { echo: { uuid: 'u1', path: '{{dataDir}}/x' } } });
    expect(entries[2]).toMatchObject({ raw: 'not json' });
  });

  it("a kill is Baton's: the exit is recorded for a replay to play at the kill; session files are kept", async () => {
    const dir = folders.make('baton-claude-rec-');
    const projects = join(dir, 'config', 'projects', 'p');
    mkdirSync(projects, { recursive: true });
    writeFileSync(join(projects, 's.jsonl'), '{"type":"user","uuid":"u1"}\n{"type":"api-request-shape","big":1}\n');
    const recording = new ClaudeRecording(agent(), [], join(dir, 'config'), { dataDir: dir });
    const seen = watch(recording.process);
    write(recording.process, { type: 'result', uuid: 'res-1' });
    await seen.said(1);
    recording.process.kill('SIGTERM');
    expect(await seen.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(recording.recorded().entries.at(-1)).toEqual({ kind: 'runtime_exit', reason: 'killed by SIGTERM' });
    // The agent's API request logs are not kept; the chain is.
    expect(recording.sessionFiles((s) => s)).toEqual({
      files: [{ path: '{{dataDir}}/config/projects/p/s.jsonl', lines: ['{"type":"user","uuid":"u1"}'] }],
      marks: [],
    });
  });
});
