import { realpathSync } from 'node:fs';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { codexAcp } from '../../src/providers/acp/acp-agents.js';
import {
  connectAgent,
  type AcpAgentConnection,
  type AcpClientHandlers,
} from '../../src/providers/acp/acp-connection.js';
import { AcpRecording } from '../../src/providers/acp/acp-recording.js';
import { AcpReplay } from '../../src/providers/acp/acp-replay.js';
import { ON_ITS_OWN } from '../../src/providers/transport/checked-replay.js';
import { withSentIdPlaceholders } from '../../src/providers/acp/acp-transcript-ids.js';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import { ChannelBase } from '../../src/providers/transport/line-channel.js';
import { lineByteStreams } from '../../src/providers/transport/line-web-streams.js';
import type { TranscriptEntry } from '../../src/providers/transport/transcript.js';
import { acpAgentProcesses, liveAcpModels } from '../support/live-acp.js';
import { TempFolders } from '../support/temp.js';

/**
 * The ACP transport seam on its own: the agent's stdio as a line channel under the SDK's
 * `ndJsonStream`; a recording of a real agent (codex-acp against the scripted Responses-API
 * model) replays in its place through the same client; a frame Baton sends that the recording
 * does not have ends the replay saying which field differs; Baton's fresh ids are placeholders.
 */
const folders = new TempFolders();
const connections: AcpAgentConnection[] = [];
const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.kill('SIGKILL')));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  expect(acpAgentProcesses()).toEqual([]);
  folders.removeAll();
});

/** Baton's side, minimal: updates are collected; the agent asks for nothing else here. */
function client(updates: acp.SessionNotification[]): AcpClientHandlers {
  const refuse = (): never => {
    throw new Error('not asked in this test');
  };
  return {
    update: (params) => void updates.push(params),
    requestPermission: async () => refuse(),
    readTextFile: async () => refuse(),
    writeTextFile: async () => refuse(),
    createTerminal: async () => refuse(),
    terminalOutput: async () => refuse(),
    waitForTerminalExit: async () => refuse(),
    killTerminal: async () => refuse(),
    releaseTerminal: async () => refuse(),
  };
}

/** The reply's text, from its message chunks. */
const replyOf = (updates: acp.SessionNotification[]): string =>
  updates
    .map((u) => u.update)
    .flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []))
    .join('');

/** One prompt on a fresh session: what Baton says over any channel. */
async function oneTurn(conn: AcpAgentConnection, cwd: string, text: string) {
  const created = await conn.agent.request('session/new', { cwd, mcpServers: [] });
  const answer = await conn.agent.request('session/prompt', {
    sessionId: created.sessionId,
    prompt: [{ type: 'text', text }],
  });
  return { sessionId: created.sessionId, stopReason: answer.stopReason };
}

/** A real codex-acp session, recorded: initialize, session/new, one prompt, then the agent is killed. */
async function recordRealSession(): Promise<{ entries: TranscriptEntry[]; cwd: string; sessionId: string }> {
  const model = await new ScriptedModelServer().start();
  servers.push(model);
  model.enqueue({ kind: 'text', text: 'Hello from a recorded agent.' });
  const cwd = realpathSync(folders.make('baton-acp-rec-ws-'));
  const dir = folders.make('baton-acp-rec-');
  const agent = codexAcp({
    claude: { baseUrl: 'http://127.0.0.1:9', model: liveAcpModels.claude },
    codex: { baseUrl: model.baseUrl, model: liveAcpModels.codex },
  });
  const recordings: AcpRecording[] = [];
  const updates: acp.SessionNotification[] = [];
  const conn = await connectAgent(agent.launch({ threadId: 'thr_rec', dir }), cwd, client(updates), (spawn) => {
    const recording = new AcpRecording(spawn(), { cwd, dataDir: dir });
    recordings.push(recording);
    return recording.channel;
  });
  connections.push(conn);
  expect(conn.child.pid).toBeGreaterThan(0);
  const turn = await oneTurn(conn, cwd, 'say hello');
  expect(turn.stopReason).toBe('end_turn');
  expect(replyOf(updates)).toBe('Hello from a recorded agent.');
  await conn.kill('SIGKILL');
  return { entries: recordings[0]!.recorded(), cwd, sessionId: turn.sessionId };
}

/** Connects to a replay of `entries`, in a workspace of its own. */
async function replayed(entries: TranscriptEntry[]) {
  const cwd = realpathSync(folders.make('baton-acp-replay-ws-'));
  const replay = new AcpReplay(entries, { cwd, dataDir: folders.make('baton-acp-replay-') }, 'unit');
  const updates: acp.SessionNotification[] = [];
  const launch = { command: '/nonexistent/agent', args: [], env: {} };
  const conn = await connectAgent(launch, cwd, client(updates), () => replay);
  connections.push(conn);
  return { conn, replay, updates, cwd };
}

describe('a recorded ACP agent', () => {
  it('replays in place of the real one: the same answers, every frame Baton sends checked, no process started', async () => {
    const recorded = await recordRealSession();
    const frames = JSON.stringify(recorded.entries);
    // The workspace travels as a placeholder; the agent's session id as it said it.
    expect(frames).toContain('"cwd":"{{cwd}}"');
    expect(frames).not.toContain(recorded.cwd);
    expect(recorded.entries.at(-1)).toEqual({ kind: 'runtime_exit', reason: 'killed by SIGKILL' });

    const { conn, replay, updates, cwd } = await replayed(recorded.entries);
    expect(conn.child.pid).toBeUndefined();
    expect(conn.features.agent).toBe('codex-acp');
    const turn = await oneTurn(conn, cwd, 'say hello');
    expect(turn).toEqual({ sessionId: recorded.sessionId, stopReason: 'end_turn' });
    expect(replyOf(updates)).toBe('Hello from a recorded agent.');
    expect(replay.mismatches).toEqual([]);
    expect(replay.remaining.filter((e) => e.kind === 'expect_outbound')).toEqual([]);
    // Baton's kill plays no recorded frame: the replay just closes.
    await conn.kill('SIGTERM');
    expect(conn.child.exitCode).toBe(0);
  }, 60_000);

  it('a frame Baton sends that differs from the recording ends the replay, saying which field differs', async () => {
    const recorded = await recordRealSession();
    const { conn, replay, cwd } = await replayed(recorded.entries);
    await expect(oneTurn(conn, cwd, 'say goodbye')).rejects.toThrow();
    await conn.exited;
    const failure = replay.mismatches[0] ?? '';
    expect(failure).toContain('the replay of unit diverged');
    expect(failure).toContain('params.prompt.0.text: expected "say hello", sent "say goodbye"');
    // Baton hears it as the agent's end, with the reason where a real agent's stderr would be.
    expect(conn.stderr()).toContain('params.prompt.0.text: expected "say hello", sent "say goodbye"');
    expect(conn.child.exitCode).toBe(1);
  }, 60_000);
});

describe('ACP transcripts', () => {
  const frame = (kind: 'expect_outbound' | 'emit_inbound', f: unknown): TranscriptEntry => ({ kind, frame: f });
  const agentSession = '0b7c3f4e-1111-4222-8333-944455556666';
  const batonTerminal = 'term_5f0e1d2c-aaaa-4bbb-8ccc-ddddeeeeffff';

  it("Baton's fresh uuids become {{sentN}} placeholders everywhere; the agent's own ids are kept", () => {
    const [entries] = withSentIdPlaceholders([
      [
        frame('emit_inbound', { id: 1, result: { sessionId: agentSession } }),
        frame('emit_inbound', { id: 7, method: 'terminal/create', params: { sessionId: agentSession } }),
        frame('expect_outbound', { id: 7, result: { terminalId: batonTerminal } }),
        frame('emit_inbound', { id: 8, method: 'terminal/output', params: { terminalId: batonTerminal } }),
      ],
    ]);
    expect(entries!.map((e) => (e.kind === 'runtime_exit' ? null : e.frame))).toEqual([
      { id: 1, result: { sessionId: agentSession } },
      { id: 7, method: 'terminal/create', params: { sessionId: agentSession } },
      { id: 7, result: { terminalId: 'term_{{sent1}}' } },
      { id: 8, method: 'terminal/output', params: { terminalId: 'term_{{sent1}}' } },
    ]);
  });

  it('a replay binds a placeholder to what Baton sends in its place and says it back', async () => {
    const replay = new AcpReplay(
      [
        frame('expect_outbound', { id: 7, result: { terminalId: 'term_{{sent1}}' } }),
        frame('emit_inbound', { id: 8, method: 'terminal/output', params: { terminalId: 'term_{{sent1}}' } }),
        { kind: 'runtime_exit', reason: `exited with code 0${ON_ITS_OWN}` },
      ],
      {},
      'unit',
    );
    const heard: string[] = [];
    replay.onLine((line) => heard.push(line));
    const closed = new Promise<string>((resolve) => replay.onClose(resolve));
    await replay.send(JSON.stringify({ id: 7, result: { terminalId: 'term_fresh-id' } }));
    // The exit the agent took on its own is played after what it said, with no kill.
    expect(await closed).toBe(`exited with code 0${ON_ITS_OWN}`);
    expect(heard.map((l) => JSON.parse(l) as unknown)).toEqual([
      { id: 8, method: 'terminal/output', params: { terminalId: 'term_fresh-id' } },
    ]);
    expect(replay.mismatches).toEqual([]);
  });

  it("a line channel under Web streams: written chunks become lines, the channel's lines are read, its close ends them", async () => {
    class Loop extends ChannelBase {
      readonly sent: string[] = [];
      async send(line: string) {
        this.sent.push(line);
      }
      say(line: string) {
        this.emitLine(line);
      }
      end(reason: string) {
        this.finish(reason);
      }
      close() {}
    }
    const channel = new Loop();
    const { output, input } = lineByteStreams(channel);
    const writer = output.getWriter();
    const bytes = (s: string) => new TextEncoder().encode(s);
    await writer.write(bytes('{"a":1}\n{"b":'));
    await writer.write(bytes('2}\n'));
    expect(channel.sent).toEqual(['{"a":1}', '{"b":2}']);
    channel.say('{"c":3}');
    channel.end('exited with code 0');
    let read = '';
    for await (const chunk of input) read += new TextDecoder().decode(chunk);
    expect(read).toBe('{"c":3}\n');
  });
});
