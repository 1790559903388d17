import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FrameRecord } from '../../src/providers/transport/diagnostics.js';
import { readFrameLogs } from '../support/frame-logs.js';
import { useLiveAcp } from '../support/live-acp.js';
import { useLiveClaude } from '../support/live-claude.js';

/**
 * The raw provider diagnostics of the real Claude agent and a real ACP agent: every frame
 * both ways of each agent process, in the thread's rotating frame log under the data dir,
 * kept private, as Codex's are (`<data>/codex/<thread>/frames/`).
 */
const claude = useLiveClaude();
const acp = useLiveAcp();

const field = (f: FrameRecord, name: string): unknown => (f.frame as Record<string, unknown>)[name];

/** The one frame log of the folder, its mode and its folder's, and its records. */
function frameLog(dir: string): { files: string[]; fileMode: number; dirMode: number; frames: FrameRecord[] } {
  const files = readdirSync(dir);
  return {
    files,
    fileMode: statSync(join(dir, files[0]!)).mode & 0o777,
    dirMode: statSync(dir).mode & 0o777,
    frames: readFrameLogs(dir),
  };
}

describe('raw frame logs of the agents a library speaks to (live)', () => {
  it("the Claude agent's stream-json lines, both ways, and its end", async () => {
    const { h, cwd, model, dataDir } = await claude.setup();
    model.enqueue({ kind: 'text', text: 'Logged.' });
    const threadId = await h.thread({ threadId: 'thr_claude_frames', cwd });
    const runId = await h.send(threadId, 'say something worth logging');
    await h.until(() => h.store.projections.get('runs', runId)?.status === 'completed', 60_000);
    await claude.providers[0]!.stopAll('SIGTERM');

    const sessions = h.store.projections.list('sessions', threadId).map((s) => s.id);
    const log = frameLog(join(dataDir, 'claude', threadId, 'frames'));
    expect(log.files).toEqual(sessions.map((id) => `${id}.ndjson`));
    expect([log.fileMode, log.dirMode]).toEqual([0o600, 0o700]);
    const { frames } = log;
    // The SDK's handshake first, then the user's message; the model's words and the result come back.
    expect(frames[0]).toMatchObject({
      dir: 'out',
      frame: { type: 'control_request', request: { subtype: 'initialize' } },
    });
    expect(frames.find((f) => f.dir === 'out' && field(f, 'type') === 'user')?.frame).toMatchObject({
      message: { role: 'user', content: 'say something worth logging' },
    });
    expect(JSON.stringify(frames.filter((f) => f.dir === 'in'))).toContain('Logged.');
    expect(frames.some((f) => f.dir === 'in' && field(f, 'type') === 'result')).toBe(true);
    expect(frames.filter((f) => f.problem)).toEqual([]);
    expect(frames.at(-1)).toMatchObject({ dir: 'note', frame: { closed: expect.stringMatching(/^(exited|killed)/) } });
  }, 120_000);

  it("an ACP agent's JSON-RPC frames, both ways, and its end", { timeout: 120_000 }, async () => {
    const { h, cwd, dataDir, provider } = await acp.setup({ claude: () => ({ kind: 'text', text: 'Logged.' }) });
    const threadId = await h.thread({ threadId: 'thr_acp_frames', cwd, provider: 'acp', acpAgent: 'claude-agent-acp' });
    const runId = await h.send(threadId, 'say something worth logging');
    await h.until(() => h.store.projections.get('runs', runId)?.status === 'completed', 60_000);
    await provider.stopAll('SIGTERM');

    const sessions = h.store.projections.list('sessions', threadId).map((s) => s.id);
    const log = frameLog(join(dataDir, 'acp', 'claude-agent-acp', threadId, 'frames'));
    expect(log.files).toEqual(sessions.map((id) => `${id}.ndjson`));
    expect([log.fileMode, log.dirMode]).toEqual([0o600, 0o700]);
    const { frames } = log;
    const methods = (dir: string) => frames.filter((f) => f.dir === dir).map((f) => field(f, 'method'));
    expect(methods('out').slice(0, 2)).toEqual(['initialize', 'session/new']);
    expect(methods('out')).toContain('session/prompt');
    expect(methods('in')).toContain('session/update');
    expect(JSON.stringify(frames.filter((f) => f.dir === 'in'))).toContain('Logged.');
    expect(frames.filter((f) => f.problem)).toEqual([]);
    expect(frames.at(-1)).toMatchObject({ dir: 'note', frame: { closed: expect.any(String) } });
  });
});
